package dev.berth.e2e;

import dev.berth.webhook.tls.CertificateAuthority;
import dev.berth.webhook.tls.KeyMaterial;
import dev.berth.webhook.tls.ServingKeyManager;
import java.net.http.HttpClient;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

/**
 * The serving certificate of the test operators' HTTPS port (visibility API, dashboard): issued for
 * 127.0.0.1 by a CA made for the test run, with the webhook's own certificate code. In the chart
 * the port has the webhook's certificate; here the operator runs without webhooks.
 */
final class TestHttps {
  private static final CertificateAuthority CA =
      CertificateAuthority.generate("berth-e2e-https", Duration.ofDays(1));
  private static final KeyMaterial SERVING =
      CA.issue(List.of("localhost"), List.of("127.0.0.1"), Duration.ofDays(1));

  private TestHttps() {}

  static ServingKeyManager keys() {
    return new ServingKeyManager(SERVING);
  }

  /** The test CA's certificate, PEM, for clients outside this JVM (kubectl berth). */
  static String caPem() {
    return CA.certificatePem();
  }

  /** An HTTP client that trusts the test CA and nothing else. */
  static HttpClient client() {
    return HttpClient.newBuilder()
        .sslContext(CA.trustingClientContext())
        .connectTimeout(Duration.ofSeconds(30))
        .build();
  }

  /**
   * One client over HTTP/1.1, which opens a connection (a TLS handshake) for every request in
   * flight at once: many callers, without a client and its threads each.
   */
  static HttpClient http11Client() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .sslContext(CA.trustingClientContext())
        .connectTimeout(Duration.ofSeconds(30))
        .build();
  }

  /** base64(SHA-256(SubjectPublicKeyInfo)) of the serving certificate, as Chromium pins it. */
  static String spkiPin() {
    try {
      return Base64.getEncoder()
          .encodeToString(
              MessageDigest.getInstance("SHA-256")
                  .digest(SERVING.leaf().getPublicKey().getEncoded()));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
