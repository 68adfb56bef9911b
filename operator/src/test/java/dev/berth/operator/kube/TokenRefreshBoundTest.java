package dev.berth.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.http.StandardHttpClientBuilder;
import io.fabric8.kubernetes.client.http.StandardHttpRequest;
import io.fabric8.kubernetes.client.utils.TokenRefreshInterceptor;
import io.fabric8.kubernetes.client.vertx.VertxHttpClientFactory;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** fabric8's token refresh, with and without {@link TokenRefreshBound}, on fabric8's own code. */
class TokenRefreshBoundTest {
  private static final HttpRequest REQUEST =
      new StandardHttpRequest.Builder().uri(URI.create("https://api:6443/api/v1/pods")).build();

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  @Test
  void withoutTheBoundFabric8LooksForATokenBeforeEveryRequestOnceAMinuteHasPassed() {
    CountingConfig config = new CountingConfig();
    TokenRefreshInterceptor fabric8 = aMinuteOld(config);

    for (int i = 0; i < 50; i++) {
      fabric8.before(new Headers(), REQUEST, null);
    }

    // The fabric8 behaviour this class exists for: a client without a token reads its whole
    // configuration again (kubeconfig files, environment, key) for each request.
    assertThat(config.refreshes).isEqualTo(50);
  }

  @Test
  void withTheBoundAClientWithoutATokenLooksOnceAMinute() {
    CountingConfig config = new CountingConfig();
    TokenRefreshBound bound = new TokenRefreshBound(aMinuteOld(config), config, nanos::get);

    requests(bound, 50);
    assertThat(config.refreshes).as("within the first minute").isZero();

    advance(TokenRefreshBound.EVERY.minusSeconds(1));
    requests(bound, 50);
    assertThat(config.refreshes).as("59 s in").isZero();

    advance(Duration.ofSeconds(2));
    requests(bound, 50);
    assertThat(config.refreshes).as("61 s in: one look").isEqualTo(1);

    advance(TokenRefreshBound.EVERY);
    requests(bound, 50);
    assertThat(config.refreshes).as("a minute later: one more").isEqualTo(2);
  }

  @Test
  void aTokenFoundIsSentOnEveryRequestAfterwards() {
    CountingConfig config = new CountingConfig();
    config.found = "fresh-token";
    TokenRefreshBound bound = new TokenRefreshBound(aMinuteOld(config), config, nanos::get);
    advance(Duration.ofSeconds(61));

    Headers first = new Headers();
    bound.before(first, REQUEST, null);
    Headers second = new Headers();
    bound.before(second, REQUEST, null);

    assertThat(first.values).containsEntry("Authorization", "Bearer fresh-token");
    assertThat(second.values).containsEntry("Authorization", "Bearer fresh-token");
    assertThat(config.refreshes).isEqualTo(1);
  }

  @Test
  void aClientWithATokenOrBasicCredentialsGoesThroughFabric8OnEveryRequest() {
    Config token = new CountingConfig();
    token.setOauthToken("static");
    Config basic = new CountingConfig();
    basic.setUsername("admin");
    basic.setPassword("secret");
    for (Config config : new Config[] {token, basic}) {
      CountingInterceptor fabric8 = new CountingInterceptor();
      TokenRefreshBound bound = new TokenRefreshBound(fabric8, config, nanos::get);

      requests(bound, 7);

      assertThat(fabric8.before).isEqualTo(7);
    }
  }

  @Test
  void clientsOfTheFactoryHaveTheBoundInPlaceOfFabric8sTokenInterceptor() {
    Config config = new CountingConfig();
    config.setMasterUrl("https://api:6443");

    var builder = TokenRefreshBound.factory(new VertxHttpClientFactory()).newBuilder(config);

    Map<String, Interceptor> interceptors =
        ((StandardHttpClientBuilder<?, ?, ?>) builder).getInterceptors();
    assertThat(interceptors.get(TokenRefreshInterceptor.NAME))
        .isInstanceOf(TokenRefreshBound.class);
    // fabric8's other interceptors stay, in their order.
    assertThat(interceptors.keySet()).contains("HEADER", "IMPERSONATOR");
  }

  private static TokenRefreshInterceptor aMinuteOld(Config config) {
    return new TokenRefreshInterceptor(config, null, Instant.now().minus(Duration.ofMinutes(2)));
  }

  private static void requests(Interceptor interceptor, int n) {
    for (int i = 0; i < n; i++) {
      interceptor.before(new Headers(), REQUEST, null);
    }
  }

  private void advance(Duration by) {
    nanos.addAndGet(by.toNanos());
  }

  /** A configuration without credentials that counts how often fabric8 reads it again. */
  private static final class CountingConfig extends Config {
    int refreshes;
    String found;

    CountingConfig() {
      super(false);
    }

    @Override
    public Config refresh() {
      refreshes++;
      Config fresh = new CountingConfig();
      fresh.setAutoOAuthToken(found);
      return fresh;
    }
  }

  private static final class CountingInterceptor implements Interceptor {
    int before;

    @Override
    public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
      before++;
    }
  }

  private static final class Headers implements BasicBuilder {
    final Map<String, String> values = new HashMap<>();

    @Override
    public BasicBuilder uri(URI uri) {
      return this;
    }

    @Override
    public BasicBuilder header(String name, String value) {
      values.put(name, value);
      return this;
    }

    @Override
    public BasicBuilder setHeader(String name, String value) {
      values.put(name, value);
      return this;
    }
  }
}
