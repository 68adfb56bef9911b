package dev.berth.webhook.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CertificatesTest {
  private static final Duration DAY = Duration.ofDays(1);

  @Test
  void servingCertificateIsSignedByTheCaAndNamesTheService() throws Exception {
    CertificateAuthority ca = CertificateAuthority.generate("ca", DAY);
    KeyMaterial serving =
        ca.issue(List.of("berth-webhook.berth-system.svc"), List.of("127.0.0.1"), DAY);
    X509Certificate leaf = serving.leaf();
    leaf.verify(ca.certificate().getPublicKey());
    List<Object> sans =
        leaf.getSubjectAlternativeNames().stream().map(l -> (Object) l.get(1)).toList();
    assertThat(sans).containsExactly("berth-webhook.berth-system.svc", "127.0.0.1");
    assertThat(leaf.getExtendedKeyUsage()).contains("1.3.6.1.5.5.7.3.1");
    assertThat(ca.certificate().getBasicConstraints()).isGreaterThanOrEqualTo(0);
  }

  @Test
  void caSurvivesAPemRoundTrip() throws Exception {
    CertificateAuthority ca = CertificateAuthority.generate("ca", DAY);
    CertificateAuthority copy =
        CertificateAuthority.fromPem(ca.certificatePem(), ca.privateKeyPem());
    copy.issue(List.of("x"), List.of(), DAY).leaf().verify(ca.certificate().getPublicKey());
  }

  @Test
  void renewalIsDueWithAThirdOfTheValidityLeft() {
    KeyMaterial serving =
        CertificateAuthority.generate("ca", Duration.ofDays(30))
            .issue(List.of("x"), List.of(), Duration.ofDays(30));
    Instant notAfter = serving.leaf().getNotAfter().toInstant();
    assertThat(serving.dueForRenewal(Instant.now(), 1.0 / 3)).isFalse();
    assertThat(serving.dueForRenewal(notAfter.minus(Duration.ofDays(9)), 1.0 / 3)).isTrue();
  }

  @Test
  void selfSignedRotationRenewsTheLeafAndThenTheCaWithABundleOfBoth() {
    List<String> bundles = new ArrayList<>();
    SelfSignedCertificates certs =
        new SelfSignedCertificates(
            CaStore.inMemory(),
            List.of("svc"),
            List.of("127.0.0.1"),
            Duration.ofDays(90),
            Duration.ofDays(9),
            bundles::add);
    assertThat(bundles).hasSize(1);
    KeyMaterial first = certs.current();
    assertThat(certs.refresh(Instant.now())).isFalse();

    assertThat(certs.refresh(Instant.now().plus(Duration.ofDays(7)))).isTrue();
    assertThat(certs.current()).isNotSameAs(first);
    assertThat(bundles).hasSize(1); // same CA, no bundle change

    CertificateAuthority oldCa = certs.ca();
    assertThat(certs.refresh(Instant.now().plus(Duration.ofDays(70)))).isTrue();
    assertThat(bundles).hasSize(2);
    assertThat(CertificateAuthority.Pem.certificates(bundles.get(1))).hasSize(2);
    // Trusted first, served one check later.
    assertThat(certs.ca()).isSameAs(oldCa);
    assertThat(certs.refresh(Instant.now().plus(Duration.ofDays(70)))).isTrue();
    assertThat(certs.ca()).isNotSameAs(oldCa);
    assertThat(certs.current().chain()[1]).isEqualTo(certs.ca().certificate());
  }

  @Test
  void rotatorSwapsIntoTheKeyManager() {
    SelfSignedCertificates certs =
        new SelfSignedCertificates(
            CaStore.inMemory(),
            List.of("svc"),
            List.of(),
            Duration.ofDays(90),
            Duration.ofDays(9),
            b -> {});
    ServingKeyManager keys = new ServingKeyManager(certs.current());
    Clock later = Clock.offset(Clock.systemUTC(), Duration.ofDays(7));
    try (CertificateRotator rotator = new CertificateRotator(certs, keys, later)) {
      KeyMaterial before = keys.current();
      assertThat(rotator.checkNow()).isTrue();
      assertThat(keys.current()).isNotSameAs(before).isSameAs(certs.current());
      String alias = keys.chooseServerAlias("EC", null, null);
      assertThat(keys.getCertificateChain(alias)[0]).isEqualTo(certs.current().leaf());
    }
  }

  @Test
  void mountedCertificatesReloadWhenTheFilesChange(@TempDir Path dir) throws Exception {
    CertificateAuthority ca = CertificateAuthority.generate("ca", DAY);
    write(dir, ca.issue(List.of("a"), List.of(), DAY));
    MountedCertificates mounted = new MountedCertificates(dir);
    X509Certificate first = mounted.current().leaf();
    assertThat(mounted.refresh(Instant.now())).isFalse();
    write(dir, ca.issue(List.of("b"), List.of(), DAY));
    assertThat(mounted.refresh(Instant.now())).isTrue();
    assertThat(mounted.current().leaf()).isNotEqualTo(first);
    Files.writeString(dir.resolve("tls.crt"), "half written");
    assertThat(mounted.refresh(Instant.now())).isFalse();
  }

  private static void write(Path dir, KeyMaterial material) throws Exception {
    Files.writeString(dir.resolve("tls.crt"), CertificateAuthority.Pem.encode(material.leaf()));
    Files.writeString(dir.resolve("tls.key"), CertificateAuthority.Pem.encodeKey(material.key()));
  }
}
