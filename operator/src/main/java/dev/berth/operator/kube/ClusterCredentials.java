package dev.berth.operator.kube;

import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.util.Base64;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * The client configuration Berth connects with: fabric8's own (kubeconfig, or the Pod's
 * service-account token, CA and namespace), with the client key handed to fabric8 in the one form
 * it reads for every algorithm, PKCS#8, and the algorithm named.
 *
 * <p>Why: fabric8 7.5 tells EC from RSA by the PEM header only ("EC PRIVATE KEY", "RSA PRIVATE
 * KEY") and parses those forms itself. A PKCS#8 key ("PRIVATE KEY", as envtest writes them) is read
 * as RSA, and an EC one fails with {@code Invalid DER: object is not integer}: the process cannot
 * connect. BouncyCastle reads all three forms; the JDK loads the PKCS#8 it is given, for either
 * algorithm, once fabric8 names it.
 */
public final class ClusterCredentials {
  private ClusterCredentials() {}

  /** As {@code new KubernetesClientBuilder().build()} would configure itself. */
  public static Config load() {
    return withPkcs8Key(Config.autoConfigure(null));
  }

  /** From a kubeconfig's content (its current context). */
  public static Config fromKubeconfig(String kubeconfig) {
    return withPkcs8Key(Config.fromKubeconfig(kubeconfig));
  }

  /** Replaces a client key (data or file) by its PKCS#8 form and sets its algorithm. */
  static Config withPkcs8Key(Config config) {
    String pem = clientKeyPem(config);
    if (pem == null) {
      return config; // a token, or no credentials
    }
    String where =
        config.getClientKeyFile() != null
            ? "client-key " + config.getClientKeyFile()
            : "client-key-data of the kubeconfig's current user";
    PrivateKey key = privateKey(pem, where);
    String algorithm = key.getAlgorithm();
    if (!algorithm.equals("RSA") && !algorithm.equals("EC")) {
      throw new IllegalArgumentException(
          where + ": a " + algorithm + " key; the Kubernetes client supports RSA and EC keys");
    }
    String pkcs8 =
        "-----BEGIN PRIVATE KEY-----\n"
            + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(key.getEncoded())
            + "\n-----END PRIVATE KEY-----\n";
    config.setClientKeyFile(null);
    config.setClientKeyData(
        Base64.getEncoder().encodeToString(pkcs8.getBytes(StandardCharsets.US_ASCII)));
    config.setClientKeyAlgo(algorithm);
    return config;
  }

  /** A PEM private key in any of PKCS#1, SEC1 or PKCS#8; {@code where} names it in errors. */
  static PrivateKey privateKey(String pem, String where) {
    Object parsed;
    try (PEMParser parser = new PEMParser(new StringReader(pem))) {
      parsed = parser.readObject();
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(where + ": not a readable PEM key: " + e.getMessage(), e);
    }
    PrivateKeyInfo info;
    if (parsed instanceof PEMKeyPair pair) {
      info = pair.getPrivateKeyInfo(); // PKCS#1 RSA or SEC1 EC
    } else if (parsed instanceof PrivateKeyInfo pkcs8) {
      info = pkcs8;
    } else if (parsed instanceof PKCS8EncryptedPrivateKeyInfo) {
      throw new IllegalArgumentException(
          where + ": an encrypted private key; the Kubernetes client needs it unencrypted");
    } else {
      throw new IllegalArgumentException(
          where
              + ": not a PEM private key"
              + (parsed == null ? "" : " (" + parsed.getClass().getSimpleName() + ")"));
    }
    try {
      return new JcaPEMKeyConverter().getPrivateKey(info);
    } catch (IOException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
    }
  }

  private static String clientKeyPem(Config config) {
    if (config.getClientKeyData() != null) {
      String data = config.getClientKeyData().trim();
      // fabric8 takes the data as base64, or as the PEM itself when it is not base64.
      try {
        return new String(Base64.getDecoder().decode(data), StandardCharsets.US_ASCII);
      } catch (IllegalArgumentException notBase64) {
        return data;
      }
    }
    if (config.getClientKeyFile() != null) {
      try {
        return Files.readString(Path.of(config.getClientKeyFile()), StandardCharsets.US_ASCII);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read client-key " + config.getClientKeyFile(), e);
      }
    }
    return null;
  }
}
