package dev.berth.webhook.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;

/**
 * cert-manager mode: tls.crt and tls.key from a mounted Secret. cert-manager renews the Secret and
 * the kubelet updates the files; this reloads them when their content changes. It never writes a
 * certificate or a caBundle (cert-manager's CA injector does).
 */
public final class MountedCertificates implements CertificateSource {
  private final Path certFile;
  private final Path keyFile;
  private volatile KeyMaterial current;
  private byte[] loadedCert;
  private byte[] loadedKey;

  public MountedCertificates(Path directory) {
    this.certFile = directory.resolve("tls.crt");
    this.keyFile = directory.resolve("tls.key");
    if (!reload()) {
      throw new IllegalStateException("no certificate in " + directory);
    }
  }

  @Override
  public KeyMaterial current() {
    return current;
  }

  @Override
  public synchronized boolean refresh(Instant now) {
    try {
      return reload();
    } catch (RuntimeException e) {
      // A half-written Secret update: keep serving the old pair and try again next time.
      return false;
    }
  }

  private synchronized boolean reload() {
    try {
      byte[] cert = Files.readAllBytes(certFile);
      byte[] key = Files.readAllBytes(keyFile);
      if (Arrays.equals(cert, loadedCert) && Arrays.equals(key, loadedKey)) {
        return false;
      }
      KeyMaterial next =
          new KeyMaterial(
              CertificateAuthority.Pem.privateKey(new String(key)),
              CertificateAuthority.Pem.certificates(new String(cert)));
      current = next;
      loadedCert = cert;
      loadedKey = key;
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
