package dev.berth.webhook.server;

import java.net.http.HttpClient;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** An HTTPS client that trusts exactly one CA, as the API server does with a caBundle. */
public final class HttpsClients {
  private HttpsClients() {}

  public static HttpClient trusting(X509Certificate ca) throws Exception {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    store.setCertificateEntry("ca", ca);
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(store);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    return HttpClient.newBuilder().sslContext(context).connectTimeout(Duration.ofSeconds(5)).build();
  }
}
