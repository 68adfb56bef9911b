package dev.berth.webhook.server;

import dev.berth.webhook.tls.CertificateAuthority;
import java.net.http.HttpClient;
import java.time.Duration;

/** An HTTPS client that trusts exactly one CA, as the API server does with a caBundle. */
public final class HttpsClients {
  private HttpsClients() {}

  /**
   * The connect timeout covers the TLS handshake too; these tests are about what the server
   * answers, not how fast, and on a machine at load average 20-40 a handshake took over 5 s.
   */
  public static HttpClient trusting(CertificateAuthority ca) {
    return HttpClient.newBuilder()
        .sslContext(ca.trustingClientContext())
        .connectTimeout(Duration.ofSeconds(30))
        .build();
  }
}
