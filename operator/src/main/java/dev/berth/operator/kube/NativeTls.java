package dev.berth.operator.kube;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.vertx.VertxHttpClientBuilder;
import io.fabric8.kubernetes.client.vertx.VertxHttpClientFactory;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.KeyManagerFactoryWrapper;
import io.netty.handler.ssl.util.TrustManagerFactoryWrapper;
import java.security.Provider;
import java.security.SecureRandom;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator client's TLS done by BoringSSL (netty-tcnative) instead of the JDK's own engine,
 * with the same key and trust material. Every watch event and every reply the operator reads, and
 * every write it sends, goes through TLS: on issue 20's baseline the JDK's engine was a third of
 * the client's event loops' samples, and its Java code a large share of what the JIT compiles in
 * the first minutes. BoringSSL's library is shipped for Linux on x86_64 and aarch64 (glibc); where
 * it does not load, or when {@code clientConnection.nativeTls} is false, the client keeps the JDK's
 * engine, as fabric8 builds it.
 *
 * <p>fabric8's Vert.x client takes its TLS from an {@link SSLContext} only, so the engines come
 * through one: {@link EngineContext} hands out BoringSSL engines of a Netty client context built
 * from fabric8's key managers (client certificates) and trust managers (the cluster's CA, or
 * trust-all when the kubeconfig says so). The certificate check stays the trust manager's, host
 * name included: BoringSSL calls it with the engine, whose parameters Vert.x sets as for the JDK's.
 */
public final class NativeTls {
  private static final Logger log = LoggerFactory.getLogger(NativeTls.class);

  private NativeTls() {}

  /**
   * fabric8's Vert.x client factory, with BoringSSL's engines when {@code wanted} and its library
   * loads; otherwise fabric8's own (the JDK's engine), saying why.
   */
  static VertxHttpClientFactory factory(boolean wanted) {
    if (!wanted || !OpenSsl.isAvailable()) {
      log.info(
          "TLS by the JDK's engine ({})",
          wanted
              ? "BoringSSL did not load: " + OpenSsl.unavailabilityCause()
              : "clientConnection.nativeTls: false");
      return new VertxHttpClientFactory();
    }
    log.info("TLS by BoringSSL ({})", OpenSsl.versionString());
    return new VertxHttpClientFactory() {
      @Override
      public VertxHttpClientBuilder<VertxHttpClientFactory> newBuilder() {
        // No shared Vert.x: each client gets and closes its own, as with fabric8's factory.
        return new VertxHttpClientBuilder<>(this, null) {
          @Override
          public VertxHttpClientBuilder<VertxHttpClientFactory> sslContext(
              KeyManager[] keyManagers, TrustManager[] trustManagers) {
            super.sslContext(keyManagers, trustManagers);
            this.sslContext = context(keyManagers, trustManagers);
            return this;
          }
        };
      }
    };
  }

  /** A context whose engines are BoringSSL's, with these managers (null: the JDK's defaults). */
  static SSLContext context(KeyManager[] keyManagers, TrustManager[] trustManagers) {
    SslContextBuilder builder = SslContextBuilder.forClient().sslProvider(SslProvider.OPENSSL);
    X509KeyManager key = first(keyManagers, X509KeyManager.class);
    if (key != null) {
      builder.keyManager(new KeyManagerFactoryWrapper(key));
    }
    X509TrustManager trust = first(trustManagers, X509TrustManager.class);
    if (trust != null) {
      builder.trustManager(new TrustManagerFactoryWrapper(trust));
    }
    try {
      return new EngineContext(builder.build());
    } catch (SSLException e) {
      throw KubernetesClientException.launderThrowable(e);
    }
  }

  private static <T> T first(Object[] managers, Class<T> type) {
    if (managers != null) {
      for (Object m : managers) {
        if (type.isInstance(m)) {
          return type.cast(m);
        }
      }
    }
    return null;
  }

  /**
   * An {@link SSLContext} over a Netty client context: its engines are BoringSSL's (freed when
   * their connection's handler is removed, or when collected); it has no sockets.
   */
  static final class EngineContext extends SSLContext {
    private static final Provider PROVIDER =
        new Provider("BerthNativeTls", "1", "BoringSSL engines through netty-tcnative") {};

    EngineContext(SslContext netty) {
      super(new Spi(netty), PROVIDER, "TLS");
    }
  }

  private static final class Spi extends SSLContextSpi {
    private final SslContext netty;

    Spi(SslContext netty) {
      this.netty = netty;
    }

    @Override
    protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom random) {
      // Built with its managers already.
    }

    @Override
    protected SSLSocketFactory engineGetSocketFactory() {
      throw new UnsupportedOperationException("engines only");
    }

    @Override
    protected SSLServerSocketFactory engineGetServerSocketFactory() {
      throw new UnsupportedOperationException("engines only");
    }

    @Override
    protected SSLEngine engineCreateSSLEngine() {
      return netty.newEngine(ByteBufAllocator.DEFAULT);
    }

    @Override
    protected SSLEngine engineCreateSSLEngine(String host, int port) {
      return netty.newEngine(ByteBufAllocator.DEFAULT, host, port);
    }

    @Override
    protected SSLSessionContext engineGetServerSessionContext() {
      return netty.sessionContext();
    }

    @Override
    protected SSLSessionContext engineGetClientSessionContext() {
      return netty.sessionContext();
    }
  }
}
