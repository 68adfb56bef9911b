package dev.berth.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.Config;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.util.Base64;
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
        """.formatted(
            Base64.getEncoder().encodeToString("unused".getBytes(StandardCharsets.US_ASCII)),
            keyField);
  }

  private static String data(String pem) {
    return "client-key-data: \"" + Base64.getEncoder().encodeToString(pem.getBytes()) + "\"";
  }

  @Test
  void aPkcs8EcKeyIsLoadedAsEc() throws Exception {
    Config config = ClusterCredentials.fromKubeconfig(kubeconfig(data(pkcs8(key("EC")))));
    assertThat(config.getClientKeyAlgo()).isEqualTo("EC");
  }

  @Test
  void aPkcs8RsaKeyIsLoadedAsRsa() throws Exception {
    Config config = ClusterCredentials.fromKubeconfig(kubeconfig(data(pkcs8(key("RSA")))));
    assertThat(config.getClientKeyAlgo()).isEqualTo("RSA");
  }

  @Test
  void aKeyFileIsReadToo(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("client.key");
    Files.writeString(file, pkcs8(key("EC")));
    Config config = ClusterCredentials.fromKubeconfig(kubeconfig("client-key: " + file));
    assertThat(config.getClientKeyAlgo()).isEqualTo("EC");
  }

  @Test
  void headersThatNameTheAlgorithmDecideIt() {
    assertThat(ClusterCredentials.algorithm(
        "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n", "k"))
        .isEqualTo("EC");
    assertThat(ClusterCredentials.algorithm(
        "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n", "k"))
        .isEqualTo("RSA");
  }

  @Test
  void anEd25519KeyIsRefusedWithWhereItCameFrom() throws Exception {
    String kubeconfig = kubeconfig(data(pkcs8(key("Ed25519"))));
    assertThatThrownBy(() -> ClusterCredentials.fromKubeconfig(kubeconfig))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("client-key-data of the kubeconfig's current user")
        .hasMessageContaining("neither RSA nor EC");
  }

  @Test
  void anEncryptedKeyIsRefusedClearly() {
    assertThatThrownBy(() -> ClusterCredentials.algorithm(
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n",
        "client-key /k"))
        .hasMessage("client-key /k: an encrypted private key; the Kubernetes client needs it"
            + " unencrypted");
  }

  @Test
  void aTokenNeedsNoKeyAlgorithm() {
    Config config = ClusterCredentials.fromKubeconfig("""
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
