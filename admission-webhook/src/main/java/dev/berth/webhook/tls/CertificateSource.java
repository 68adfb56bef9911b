package dev.berth.webhook.tls;

import java.time.Instant;

/** Where the serving certificate comes from: generated here, or mounted from cert-manager. */
public interface CertificateSource {
  KeyMaterial current();

  /** Renews or reloads when due; returns true when {@link #current()} changed. */
  boolean refresh(Instant now);
}
