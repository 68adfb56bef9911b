package dev.berth.operator.kube;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.utils.TokenRefreshInterceptor;
import io.fabric8.kubernetes.client.utils.Utils;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * fabric8's token refresh, held to the once a minute it means. fabric8 7.5.2's {@link
 * TokenRefreshInterceptor} looks for a new token when a minute has passed since it last found one,
 * and moves that time only when it finds one. A client with no token at all (a client certificate:
 * local mode, the test suites, a kubeconfig with {@code client-certificate-data}) therefore re-read
 * the kubeconfig files, the environment and the client key before every request from its second
 * minute on: 9 % of the operator's CPU on the 15,000-workload benchmark (docs/benchmarks.md). In a
 * pod, with its service-account token, fabric8 finds a token and is not affected.
 *
 * <p>While the client has no token, fabric8's interceptor runs at most once per {@link #EVERY};
 * with a token, basic credentials or an OIDC provider it runs on every request, as before, and so
 * does the retry after a 401.
 */
final class TokenRefreshBound implements Interceptor {
  static final Duration EVERY = Duration.ofMinutes(1);

  private final Interceptor fabric8;
  private final Config config;
  private final LongSupplier nanoTime;
  private final AtomicLong nextLook;

  TokenRefreshBound(Interceptor fabric8, Config config, LongSupplier nanoTime) {
    this.fabric8 = fabric8;
    this.config = config;
    this.nanoTime = nanoTime;
    this.nextLook = new AtomicLong(nanoTime.getAsLong() + EVERY.toNanos());
  }

  /**
   * A factory whose clients have fabric8's common configuration with this bound in place of its
   * token interceptor.
   */
  static HttpClient.Factory factory(HttpClient.Factory delegate) {
    return new HttpClient.Factory() {
      @Override
      public HttpClient.Builder newBuilder() {
        return delegate.newBuilder();
      }

      @Override
      public HttpClient.Builder newBuilder(Config config) {
        HttpClient.Builder builder = HttpClient.Factory.super.newBuilder(config);
        if (config != null) {
          builder.addOrReplaceInterceptor(
              TokenRefreshInterceptor.NAME,
              new TokenRefreshBound(
                  new TokenRefreshInterceptor(config, this, Instant.now()),
                  config,
                  System::nanoTime));
        }
        return builder;
      }

      @Override
      public int priority() {
        return delegate.priority();
      }
    };
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    if (hasCredentialsToSend()) {
      fabric8.before(builder, request, tags);
      return;
    }
    // No header to set: fabric8's interceptor would only look for a token, so at most once a
    // minute (one request a minute wins the look; the others go without it).
    long now = nanoTime.getAsLong();
    long next = nextLook.get();
    if (now - next >= 0 && nextLook.compareAndSet(next, now + EVERY.toNanos())) {
      fabric8.before(builder, request, tags);
    }
  }

  @Override
  public CompletableFuture<Boolean> afterFailure(
      BasicBuilder builder, HttpResponse<?> response, RequestTags tags) {
    return fabric8.afterFailure(builder, response, tags);
  }

  /** What fabric8's interceptor would put on every request, or refresh by itself when expired. */
  private boolean hasCredentialsToSend() {
    return config.getOauthTokenProvider() != null
        || Utils.isNotNullOrEmpty(config.getOauthToken())
        || Utils.isNotNullOrEmpty(config.getAutoOAuthToken())
        || (Utils.isNotNullOrEmpty(config.getUsername())
            && Utils.isNotNullOrEmpty(config.getPassword()))
        || config.getAuthProvider() != null;
  }
}
