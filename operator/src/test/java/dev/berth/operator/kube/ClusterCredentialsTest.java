package dev.berth.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.Config;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.interfaces.RSAPrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.PKCS8Generator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterCredentialsTest {

  private static PrivateKey key(String algorithm) throws Exception {
    return KeyPairGenerator.getInstance(algorithm).generateKeyPair().getPrivate();
  }

  /** PrivateKey.getEncoded() is PKCS#8 for every JDK key type. */
  private static String pkcs8(PrivateKey key) {
    return "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
            .encodeToString(key.getEncoded())
        + "\n-----END PRIVATE KEY-----\n";
  }

  private static String kubeconfig(String keyField) {
    return """
        apiVersion: v1
        kind: Config
        clusters:
        - name: c
          cluster: {server: "https://127.0.0.1:6443"}
        users:
        - name: u
          user:
            client-certificate-data: "%s"
            %s
        contexts:
        - name: x
          context: {cluster: c, user: u}
        current-context: x
        """
        .formatted(
            Base64.getEncoder().encodeToString("unused".getBytes(StandardCharsets.US_ASCII)),
            keyField);
  }

  private static String data(String pem) {
    return "client-key-data: \"" + Base64.getEncoder().encodeToString(pem.getBytes()) + "\"";
  }

  /** BouncyCastle's PEM writer: PKCS#1 for an RSA key. */
  private static String pem(Object object) throws Exception {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(object);
    }
    return out.toString();
  }

  private static String keyHandedToFabric8(Config config) {
    assertThat(config.getClientKeyFile()).isNull();
    return new String(
        Base64.getDecoder().decode(config.getClientKeyData()), StandardCharsets.US_ASCII);
  }

  /** What fabric8 does with a PKCS#8 key of a known algorithm: the JDK's KeyFactory. */
  private static PrivateKey loadedByTheJdk(Config config) throws Exception {
    String pem = keyHandedToFabric8(config);
    assertThat(pem).startsWith("-----BEGIN PRIVATE KEY-----");
    byte[] der = Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""));
    return KeyFactory.getInstance(config.getClientKeyAlgo())
        .generatePrivate(new PKCS8EncodedKeySpec(der));
  }

  @Test
  void aPkcs8EcKeyIsLoadedAsEc() throws Exception {
    PrivateKey key = key("EC");
    Config config = ClusterCredentials.fromKubeconfig(kubeconfig(data(pkcs8(key))));
    assertThat(config.getClientKeyAlgo()).isEqualTo("EC");
    assertThat(keyHandedToFabric8(config)).isEqualTo(pkcs8(key));
  }

  @Test
  void aPkcs8RsaKeyIsLoadedAsRsa() throws Exception {
    Config config = ClusterCredentials.fromKubeconfig(kubeconfig(data(pkcs8(key("RSA")))));
    assertThat(config.getClientKeyAlgo()).isEqualTo("RSA");
  }

  /** SEC1 EC keys against a real API server: ClusterCredentialsIT. */
  @Test
  void aPkcs1RsaKeyIsHandedOverAsPkcs8() throws Exception {
    PrivateKey rsa = key("RSA");
    String pkcs1 = pem(rsa);
    assertThat(pkcs1).startsWith("-----BEGIN RSA PRIVATE KEY-----");
    Config fromPkcs1 = ClusterCredentials.fromKubeconfig(kubeconfig(data(pkcs1)));
    assertThat(fromPkcs1.getClientKeyAlgo()).isEqualTo("RSA");
    assertThat(((RSAPrivateKey) loadedByTheJdk(fromPkcs1)).getPrivateExponent())
        .isEqualTo(((RSAPrivateKey) rsa).getPrivateExponent());
  }

  @Test
  void aKeyFileIsReadToo(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("client.key");
    PrivateKey key = key("EC");
    Files.writeString(file, pkcs8(key));
    Config config = ClusterCredentials.fromKubeconfig(kubeconfig("client-key: " + file));
    assertThat(config.getClientKeyAlgo()).isEqualTo("EC");
    assertThat(keyHandedToFabric8(config)).isEqualTo(pkcs8(key));
  }

  @Test
  void anEd25519KeyIsRefusedWithWhereItCameFrom() throws Exception {
    String kubeconfig = kubeconfig(data(pkcs8(key("Ed25519"))));
    assertThatThrownBy(() -> ClusterCredentials.fromKubeconfig(kubeconfig))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("client-key-data of the kubeconfig's current user: a EdDSA key")
        .hasMessageContaining("supports RSA and EC");
  }

  @Test
  void anEncryptedKeyIsRefusedClearly(@TempDir Path dir) throws Exception {
    var encryptor =
        new JceOpenSSLPKCS8EncryptorBuilder(PKCS8Generator.AES_256_CBC)
            .setProvider(new BouncyCastleProvider())
            .setPassword("secret".toCharArray())
            .build();
    Path file = dir.resolve("encrypted.key");
    Files.writeString(file, pem(new JcaPKCS8Generator(key("EC"), encryptor).generate()));
    assertThatThrownBy(() -> ClusterCredentials.fromKubeconfig(kubeconfig("client-key: " + file)))
        .hasMessage(
            "client-key "
                + file
                + ": an encrypted private key; the Kubernetes client"
                + " needs it unencrypted");
  }

  @Test
  void somethingElseIsRefusedClearly() {
    String notAKey = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    assertThatThrownBy(() -> ClusterCredentials.fromKubeconfig(kubeconfig(data(notAKey))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("client-key-data of the kubeconfig's current user: not a");
  }

  @Test
  void aTokenNeedsNoKeyAlgorithm() {
    Config config =
        ClusterCredentials.fromKubeconfig(
            """
        apiVersion: v1
        kind: Config
        clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
        users: [{name: u, user: {token: abc}}]
        contexts: [{name: x, context: {cluster: c, user: u}}]
        current-context: x
        """);
    assertThat(config.getClientKeyAlgo()).isNull();
  }
}
