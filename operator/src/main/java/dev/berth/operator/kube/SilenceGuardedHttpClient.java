package dev.berth.operator.kube;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.http.TlsVersion;
import io.fabric8.kubernetes.client.http.WebSocket;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;

/**
 * An HTTP client that is another one (fabric8's Vert.x client) but for the listeners of its
 * WebSocket watches, which it hands to {@link WatchSilence}. Plumbing only: fabric8 builds the
 * watch listener inside its watch manager and offers no interceptor hook after the upgrade, so the
 * client that opens the WebSocket is the one place to put it. Derived clients (fabric8 derives one
 * per request configuration) are wrapped too.
 */
final class SilenceGuardedHttpClient implements HttpClient {
  private final HttpClient delegate;
  private final WatchSilence silence;

  private SilenceGuardedHttpClient(HttpClient delegate, WatchSilence silence) {
    this.delegate = delegate;
    this.silence = silence;
  }

  /** A factory of such clients over {@code delegate}'s. */
  static HttpClient.Factory factory(HttpClient.Factory delegate, WatchSilence silence) {
    return new HttpClient.Factory() {
      @Override
      public HttpClient.Builder newBuilder() {
        return new Builder(delegate.newBuilder(), silence);
      }

      @Override
      public int priority() {
        return delegate.priority();
      }
    };
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public DerivedClientBuilder newBuilder() {
    return new Derived(delegate.newBuilder(), silence);
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, Class<T> type) {
    return delegate.sendAsync(request, type);
  }

  @Override
  public CompletableFuture<HttpResponse<AsyncBody>> consumeBytes(
      HttpRequest request, AsyncBody.Consumer<List<ByteBuffer>> consumer) {
    return delegate.consumeBytes(request, consumer);
  }

  @Override
  public WebSocket.Builder newWebSocketBuilder() {
    return new WebSocketBuilder(delegate.newWebSocketBuilder(), silence);
  }

  @Override
  public HttpRequest.Builder newHttpRequestBuilder() {
    return delegate.newHttpRequestBuilder();
  }

  @Override
  public boolean isClosed() {
    return delegate.isClosed();
  }

  /** Notes the URI; a watch's listener is guarded when the socket is built. */
  private static final class WebSocketBuilder implements WebSocket.Builder {
    private final WebSocket.Builder delegate;
    private final WatchSilence silence;
    private URI uri;

    WebSocketBuilder(WebSocket.Builder delegate, WatchSilence silence) {
      this.delegate = delegate;
      this.silence = silence;
    }

    @Override
    public CompletableFuture<WebSocket> buildAsync(WebSocket.Listener listener) {
      boolean watch = uri != null && WatchDeadlines.isWatch(uri);
      return delegate.buildAsync(watch ? silence.guard(uri, listener) : listener);
    }

    @Override
    public WebSocket.Builder subprotocol(String protocol) {
      delegate.subprotocol(protocol);
      return this;
    }

    @Override
    public WebSocket.Builder header(String name, String value) {
      delegate.header(name, value);
      return this;
    }

    @Override
    public WebSocket.Builder setHeader(String name, String value) {
      delegate.setHeader(name, value);
      return this;
    }

    @Override
    public WebSocket.Builder uri(URI uri) {
      this.uri = uri;
      delegate.uri(uri);
      return this;
    }

    @Override
    public WebSocket.Builder connectTimeout(long timeout, TimeUnit unit) {
      delegate.connectTimeout(timeout, unit);
      return this;
    }
  }

  private static class Derived implements DerivedClientBuilder {
    private final DerivedClientBuilder delegate;
    final WatchSilence silence;

    Derived(DerivedClientBuilder delegate, WatchSilence silence) {
      this.delegate = delegate;
      this.silence = silence;
    }

    @Override
    public HttpClient build() {
      return new SilenceGuardedHttpClient(delegate.build(), silence);
    }

    @Override
    public DerivedClientBuilder addOrReplaceInterceptor(String name, Interceptor interceptor) {
      delegate.addOrReplaceInterceptor(name, interceptor);
      return this;
    }

    @Override
    public DerivedClientBuilder authenticatorNone() {
      delegate.authenticatorNone();
      return this;
    }

    @Override
    public DerivedClientBuilder tag(Object value) {
      delegate.tag(value);
      return this;
    }
  }

  private static final class Builder extends Derived implements HttpClient.Builder {
    private final HttpClient.Builder delegate;

    Builder(HttpClient.Builder delegate, WatchSilence silence) {
      super(delegate, silence);
      this.delegate = delegate;
    }

    @Override
    public HttpClient build() {
      return new SilenceGuardedHttpClient(delegate.build(), silence);
    }

    @Override
    public HttpClient.Builder connectTimeout(long connectTimeout, TimeUnit unit) {
      delegate.connectTimeout(connectTimeout, unit);
      return this;
    }

    @Override
    public HttpClient.Builder addOrReplaceInterceptor(String name, Interceptor interceptor) {
      delegate.addOrReplaceInterceptor(name, interceptor);
      return this;
    }

    @Override
    public HttpClient.Builder authenticatorNone() {
      delegate.authenticatorNone();
      return this;
    }

    @Override
    public HttpClient.Builder tag(Object value) {
      delegate.tag(value);
      return this;
    }

    @Override
    public HttpClient.Builder sslContext(KeyManager[] keyManagers, TrustManager[] trustManagers) {
      delegate.sslContext(keyManagers, trustManagers);
      return this;
    }

    @Override
    public HttpClient.Builder followAllRedirects() {
      delegate.followAllRedirects();
      return this;
    }

    @Override
    public HttpClient.Builder proxyAddress(InetSocketAddress proxyAddress) {
      delegate.proxyAddress(proxyAddress);
      return this;
    }

    @Override
    public HttpClient.Builder proxyAuthorization(String credentials) {
      delegate.proxyAuthorization(credentials);
      return this;
    }

    @Override
    public HttpClient.Builder tlsVersions(TlsVersion... tlsVersions) {
      delegate.tlsVersions(tlsVersions);
      return this;
    }

    @Override
    public HttpClient.Builder preferHttp11() {
      delegate.preferHttp11();
      return this;
    }

    @Override
    public HttpClient.Builder proxyType(ProxyType type) {
      delegate.proxyType(type);
      return this;
    }
  }
}
