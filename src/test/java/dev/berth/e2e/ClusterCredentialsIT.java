package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.operator.Clients;
import dev.berth.operator.kube.ClusterCredentials;
import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.SelfSubjectReview;
import io.fabric8.kubernetes.api.model.authentication.SelfSubjectReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Comparator;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.bouncycastle.asn1.DERBitString;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Berth's client connects with the credentials clusters hand out: RSA and EC client certificates,
 * with their keys as PKCS#1, SEC1 and PKCS#8 PEM, and ServiceAccount tokens. Each is checked by a
 * real kube-apiserver, which says who it authenticated (SelfSubjectReview), through the operator's
 * client with either TLS engine (BoringSSL, and the JDK's where that does not load).
 *
 * <p>kube-api-test trusts only its own client certificate, which cannot sign others (it is no CA).
 * This server therefore runs from a directory of its own, where the test puts a client CA (and the
 * serving certificate) before kube-api-test looks; the binaries are the shared ones.
 */
class ClusterCredentialsIT {
  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

  private static Path dir;
  private static KubeAPIServer server;
  private static KubernetesClient admin;
  private static KeyPair caKeys;
  private static X509Certificate ca;
  private static String serverUrl;
  private static String serverCa;

  @BeforeAll
  static void startAnApiServerWithAClientCa() throws Exception {
    dir = Files.createTempDirectory("berth-credentials-");
    String base =
        System.getenv()
            .getOrDefault(
                "KUBE_API_TEST_DIR",
                Path.of(System.getProperty("user.home"), ".kubeapitest").toString());
    Files.createSymbolicLink(dir.resolve("k8s"), Path.of(base, "k8s"));
    caKeys = keys("RSA");
    ca = certificate("O=system:masters,CN=kubeapitest", caKeys.getPublic(), caKeys, true, null);
    // kube-api-test's names: its admin kubeconfig uses client.crt and client.key, and the API
    // server trusts client.crt as its client CA (--client-ca-file).
    write(dir.resolve("client.crt"), pem(ca));
    write(dir.resolve("client.key"), pem(caKeys.getPrivate()));
    KeyPair serving = keys("RSA");
    X509Certificate servingCert =
        certificate(
            "CN=kube-apiserver",
            serving.getPublic(),
            serving,
            false,
            new GeneralNames(
                new GeneralName[] {
                  new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                  new GeneralName(GeneralName.dNSName, "localhost")
                }));
    write(dir.resolve("apiserver.crt"), pem(servingCert));
    write(dir.resolve("apiserver.key"), pem(serving.getPrivate()));
    server =
        new KubeAPIServer(
            KubeAPIServerConfigBuilder.anAPIServerConfig()
                .withTestDir(dir.toString())
                .withOfflineMode(true)
                .withUpdateKubeConfig(false)
                .build());
    server.start();
    admin =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(server.getKubeConfigYaml()))
            .build();
    serverUrl = admin.getMasterUrl().toString();
    serverCa = pem(servingCert);
  }

  @AfterAll
  static void stop() throws IOException {
    if (admin != null) {
      admin.close();
    }
    if (server != null) {
      server.stop();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Test
  void anRsaCertificateWithAPkcs1Key() throws Exception {
    assertThat(userOf(certificateUser("berth-rsa-pkcs1", "RSA", false)))
        .isEqualTo("berth-rsa-pkcs1");
  }

  @Test
  void anRsaCertificateWithAPkcs8Key() throws Exception {
    assertThat(userOf(certificateUser("berth-rsa-pkcs8", "RSA", true)))
        .isEqualTo("berth-rsa-pkcs8");
  }

  @Test
  void anEcCertificateWithASec1Key() throws Exception {
    assertThat(userOf(certificateUser("berth-ec-sec1", "EC", false))).isEqualTo("berth-ec-sec1");
  }

  /** envtest's kind of credentials: the case fabric8 alone cannot load. */
  @Test
  void anEcCertificateWithAPkcs8Key() throws Exception {
    String kubeconfig = certificateUser("berth-ec-pkcs8", "EC", true);
    assertThat(userOf(kubeconfig)).isEqualTo("berth-ec-pkcs8");
    // Why ClusterCredentials exists: without it the client reads the key as RSA. When a fabric8
    // upgrade makes this line fail, ClusterCredentials can go.
    assertThatThrownBy(
            () -> {
              try (KubernetesClient plain =
                  new KubernetesClientBuilder()
                      .withConfig(Config.fromKubeconfig(kubeconfig))
                      .build()) {
                plain.resource(new SelfSubjectReviewBuilder().build()).create();
              }
            })
        .hasStackTraceContaining("Invalid DER: object is not integer");
  }

  @Test
  void anEcPkcs8KeyInAFile() throws Exception {
    KeyPair keys = keys("EC");
    X509Certificate cert = certificate("CN=berth-ec-file", keys.getPublic(), caKeys, false, null);
    Path crt = dir.resolve("ec-file.crt");
    Path key = dir.resolve("ec-file.key");
    write(crt, pem(cert));
    write(key, pkcs8(keys.getPrivate()));
    assertThat(userOf(kubeconfig("client-certificate: " + crt + "\n      client-key: " + key)))
        .isEqualTo("berth-ec-file");
  }

  @Test
  void aServiceAccountToken() {
    admin
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName("credentials").endMetadata().build())
        .create();
    admin
        .serviceAccounts()
        .inNamespace("credentials")
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName("berth").endMetadata().build())
        .create();
    String token =
        admin
            .serviceAccounts()
            .inNamespace("credentials")
            .withName("berth")
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    assertThat(userOf(kubeconfig("token: " + token)))
        .isEqualTo("system:serviceaccount:credentials:berth");
  }

  /**
   * Who the API server says the kubeconfig's user is, connected as Berth connects: through the
   * operator's client, once with TLS by BoringSSL (the client certificate is then presented by it)
   * and once by the JDK's engine; the two must get the same answer.
   */
  private static String userOf(String kubeconfig) {
    String boringSsl = userOf(kubeconfig, true);
    assertThat(userOf(kubeconfig, false)).as("the JDK's engine").isEqualTo(boringSsl);
    return boringSsl;
  }

  private static String userOf(String kubeconfig, boolean nativeTls) {
    try (KubernetesClient client =
        Clients.builder(Duration.ofSeconds(10), Duration.ZERO, nativeTls)
            .withConfig(ClusterCredentials.fromKubeconfig(kubeconfig))
            .build()) {
      SelfSubjectReview review = client.resource(new SelfSubjectReviewBuilder().build()).create();
      return review.getStatus().getUserInfo().getUsername();
    }
  }

  /** A kubeconfig whose user has a certificate for {@code name} signed by the client CA. */
  private static String certificateUser(String name, String algorithm, boolean asPkcs8)
      throws Exception {
    KeyPair keys = keys(algorithm);
    X509Certificate cert = certificate("CN=" + name, keys.getPublic(), caKeys, false, null);
    String key =
        asPkcs8
            ? pkcs8(keys.getPrivate())
            : algorithm.equals("EC") ? sec1(keys) : pem(keys.getPrivate());
    assertThat(key)
        .startsWith(
            asPkcs8
                ? "-----BEGIN PRIVATE KEY-----"
                : "-----BEGIN " + algorithm + " PRIVATE KEY-----");
    return kubeconfig(
        "client-certificate-data: "
            + base64(pem(cert))
            + "\n      client-key-data: "
            + base64(key));
  }

  private static String kubeconfig(String userFields) {
    return """
        apiVersion: v1
        kind: Config
        clusters:
        - name: test
          cluster:
            server: %s
            certificate-authority-data: %s
        users:
        - name: user
          user:
          %s
        contexts:
        - name: test
          context: {cluster: test, user: user}
        current-context: test
        """
        .formatted(serverUrl, base64(serverCa), "    " + userFields);
  }

  private static KeyPair keys(String algorithm) throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance(algorithm);
    generator.initialize("EC".equals(algorithm) ? 256 : 2048);
    return generator.generateKeyPair();
  }

  private static X509Certificate certificate(
      String subject, java.security.PublicKey key, KeyPair issuer, boolean isCa, GeneralNames san)
      throws Exception {
    Instant now = Instant.now();
    X500Name issuerName =
        isCa
            ? new X500Name(subject)
            : X500Name.getInstance(ca.getSubjectX500Principal().getEncoded());
    JcaX509v3CertificateBuilder builder =
        new JcaX509v3CertificateBuilder(
            issuerName,
            BigInteger.valueOf(SERIAL.incrementAndGet()),
            Date.from(now.minus(1, ChronoUnit.MINUTES)),
            Date.from(now.plus(1, ChronoUnit.DAYS)),
            new X500Name(subject),
            key);
    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
    if (isCa) {
      builder.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.digitalSignature));
    } else {
      builder.addExtension(
          Extension.keyUsage,
          true,
          new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
      builder.addExtension(
          Extension.extendedKeyUsage,
          false,
          new ExtendedKeyUsage(
              new KeyPurposeId[] {KeyPurposeId.id_kp_clientAuth, KeyPurposeId.id_kp_serverAuth}));
    }
    if (san != null) {
      builder.addExtension(Extension.subjectAlternativeName, false, san);
    }
    return new JcaX509CertificateConverter()
        .getCertificate(
            builder.build(new JcaContentSignerBuilder("SHA256withRSA").build(issuer.getPrivate())));
  }

  /**
   * An EC key as k3s, openssl and Go's x509.MarshalECPrivateKey write it (SEC1 with the curve and
   * the public key; BouncyCastle's PEM writer leaves the curve out of a JDK key).
   */
  private static String sec1(KeyPair keys) throws IOException {
    AlgorithmIdentifier curve =
        PrivateKeyInfo.getInstance(keys.getPrivate().getEncoded()).getPrivateKeyAlgorithm();
    DERBitString point =
        new DERBitString(
            SubjectPublicKeyInfo.getInstance(keys.getPublic().getEncoded())
                .getPublicKeyData()
                .getBytes());
    byte[] der =
        new org.bouncycastle.asn1.sec.ECPrivateKey(
                256, ((ECPrivateKey) keys.getPrivate()).getS(), point, curve.getParameters())
            .getEncoded();
    return pem(new PemObject("EC PRIVATE KEY", der));
  }

  /** PKCS#1 for an RSA key; certificates. */
  private static String pem(Object object) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(object);
    }
    return out.toString();
  }

  private static String pkcs8(PrivateKey key) {
    return "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(key.getEncoded())
        + "\n-----END PRIVATE KEY-----\n";
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
  }

  private static void write(Path file, String content) throws IOException {
    Files.writeString(file, content, StandardCharsets.US_ASCII);
  }
}
