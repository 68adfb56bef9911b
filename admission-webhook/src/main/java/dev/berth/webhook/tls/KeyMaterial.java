package dev.berth.webhook.tls;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;

/** A serving key and its certificate chain (leaf first). */
public record KeyMaterial(PrivateKey key, X509Certificate[] chain) {

  public X509Certificate leaf() {
    return chain[0];
  }

  /**
   * Whether less than {@code fraction} of the leaf's validity remains at {@code now}: rotating at a
   * third left gives several check intervals to succeed before anything expires.
   */
  public boolean dueForRenewal(Instant now, double fraction) {
    Instant notBefore = leaf().getNotBefore().toInstant();
    Instant notAfter = leaf().getNotAfter().toInstant();
    Duration total = Duration.between(notBefore, notAfter);
    Duration left = Duration.between(now, notAfter);
    return left.toMillis() < total.toMillis() * fraction;
  }
}
