package dev.berth.local;

import dev.berth.webhook.tls.CertificateAuthority;
import dev.berth.webhook.tls.ServingKeyManager;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;

/**
 * What local mode prints for its dashboard: a link that signs the local admin in, and the CA of the
 * loopback certificate, for {@code curl --cacert} or a browser that should trust it.
 */
final class DashboardLink {
  private DashboardLink() {}

  /**
   * The dashboard's URL with the token in the fragment: browsers never send a fragment, so the
   * token reaches neither logs nor Referer headers; the page moves it into session storage.
   */
  static String url(int port, String token) {
    return "https://127.0.0.1:"
        + port
        + "/dashboard/#token="
        + URLEncoder.encode(token, StandardCharsets.UTF_8);
  }

  /** Writes the CA that signed the serving certificate to {@code dir/berth-ca.crt}. */
  static Path writeCa(ServingKeyManager keys, Path dir) throws IOException {
    String alias = keys.chooseServerAlias("EC", null, null);
    X509Certificate[] chain = keys.getCertificateChain(alias);
    Path file = dir.resolve("berth-ca.crt");
    Files.createDirectories(dir);
    Files.writeString(file, CertificateAuthority.Pem.encode(chain[chain.length - 1]));
    return file;
  }
}
