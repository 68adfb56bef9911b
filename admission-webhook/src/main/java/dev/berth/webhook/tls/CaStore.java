package dev.berth.webhook.tls;

import java.util.function.Supplier;

/**
 * Where the self-signed CA lives. Replicas must share one CA, or each would patch its own into the
 * caBundle and the API server would trust only the last one.
 */
public interface CaStore {
  /** The stored CA, or the generated one stored first (whoever stores first wins). */
  CertificateAuthority loadOrCreate(Supplier<CertificateAuthority> generate);

  /** Replaces {@code expected} by {@code next}; returns the CA that is stored afterwards. */
  CertificateAuthority replace(CertificateAuthority expected, CertificateAuthority next);

  /** A single process's CA, for one replica and for tests. */
  static CaStore inMemory() {
    return new CaStore() {
      private CertificateAuthority ca;

      @Override
      public synchronized CertificateAuthority loadOrCreate(
          Supplier<CertificateAuthority> generate) {
        if (ca == null) {
          ca = generate.get();
        }
        return ca;
      }

      @Override
      public synchronized CertificateAuthority replace(
          CertificateAuthority expected, CertificateAuthority next) {
        if (ca == expected) {
          ca = next;
        }
        return ca;
      }
    };
  }
}
