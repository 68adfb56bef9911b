package dev.berth.webhook.server;

import dev.berth.webhook.tls.CertificateAuthority;
import java.net.http.HttpClient;
import java.security.cert.X509Certificate;
import java.time.Duration;

/** An HTTPS client that trusts exactly one CA, as the API server does with a caBundle. */
public final class HttpsClients {
  private HttpsClients() {}

  public static HttpClient trusting(CertificateAuthority ca) {
    return HttpClient.newBuilder().sslContext(ca.trustingClientContext())
        .connectTimeout(Duration.ofSeconds(5)).build();
  }
}
