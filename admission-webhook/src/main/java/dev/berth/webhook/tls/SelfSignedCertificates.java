package dev.berth.webhook.tls;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;

/**
 * Self-generated certificates: a CA (shared through a {@link CaStore}) and this replica's serving
 * certificate, both renewed when less than a third of their validity remains. Whenever the CA
 * changes, the bundle handed to {@code onCaBundle} holds the new CA and the one before it, so
 * replicas still serving under the old CA stay trusted until they move over.
 */
public final class SelfSignedCertificates implements CertificateSource {
  static final double RENEW_AT_FRACTION_LEFT = 1.0 / 3;

  private final CaStore store;
  private final List<String> dnsNames;
  private final List<String> ipAddresses;
  private final Duration caValidity;
  private final Duration servingValidity;
  private final Consumer<String> onCaBundle;
  private CertificateAuthority ca;

  /** A CA already in the bundle but not yet signing our serving certificate. */
  private CertificateAuthority pending;

  private volatile KeyMaterial serving;

  public SelfSignedCertificates(
      CaStore store,
      List<String> dnsNames,
      List<String> ipAddresses,
      Duration caValidity,
      Duration servingValidity,
      Consumer<String> onCaBundle) {
    this.store = store;
    this.dnsNames = List.copyOf(dnsNames);
    this.ipAddresses = List.copyOf(ipAddresses);
    this.caValidity = caValidity;
    this.servingValidity = servingValidity;
    this.onCaBundle = onCaBundle;
    this.ca = store.loadOrCreate(this::newCa);
    this.serving = ca.issue(dnsNames, ipAddresses, servingValidity);
    onCaBundle.accept(ca.certificatePem());
  }

  @Override
  public KeyMaterial current() {
    return serving;
  }

  public synchronized CertificateAuthority ca() {
    return ca;
  }

  /**
   * One check. A new CA (ours or another replica's) is trusted first and served later: the bundle
   * with both CAs is published now, and the serving certificate moves to the new CA at the next
   * check, once the API server has picked the bundle up. Until then the old CA, which still has a
   * third of its life, keeps signing.
   */
  @Override
  public synchronized boolean refresh(Instant now) {
    if (pending != null) {
      ca = pending;
      pending = null;
      serving = ca.issue(dnsNames, ipAddresses, servingValidity);
      return true;
    }
    CertificateAuthority stored = store.loadOrCreate(this::newCa);
    if (stored.certificate().equals(ca.certificate()) && caDue(ca, now)) {
      stored = store.replace(ca, newCa());
    }
    if (!stored.certificate().equals(ca.certificate())) {
      onCaBundle.accept(stored.certificatePem() + ca.certificatePem());
      if (now.isAfter(ca.certificate().getNotAfter().toInstant())) {
        ca = stored; // nothing to bridge: the old CA is already useless
        serving = ca.issue(dnsNames, ipAddresses, servingValidity);
        return true;
      }
      pending = stored;
    }
    if (serving.dueForRenewal(now, RENEW_AT_FRACTION_LEFT)) {
      serving = ca.issue(dnsNames, ipAddresses, servingValidity);
      return true;
    }
    return false;
  }

  private boolean caDue(CertificateAuthority authority, Instant now) {
    return new KeyMaterial(null, new java.security.cert.X509Certificate[] {authority.certificate()})
        .dueForRenewal(now, RENEW_AT_FRACTION_LEFT);
  }

  private CertificateAuthority newCa() {
    return CertificateAuthority.generate("berth-webhook-ca", caValidity);
  }
}
