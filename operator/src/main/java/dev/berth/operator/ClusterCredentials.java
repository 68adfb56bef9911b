package dev.berth.operator;

import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The client configuration Berth connects with: fabric8's own (kubeconfig, or the Pod's
 * service-account token, CA and namespace), with the algorithm of a PKCS#8 client key read from
 * the key.
 *
 * <p>Why: fabric8 tells EC from RSA by the PEM header only ("EC PRIVATE KEY", "RSA PRIVATE
 * KEY"). A PKCS#8 key ("PRIVATE KEY"), as envtest, kind and kubeadm-style tooling write them, is
 * then read as RSA, and an EC one fails with {@code Invalid DER: object is not integer}. The JDK
 * reads PKCS#8 for both algorithms; it only needs to be told which.
 */
public final class ClusterCredentials {
  private static final Pattern PEM =
      Pattern.compile("-----BEGIN ([A-Z ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");
  /** What fabric8's client can load a client key as (its clientKeyAlgo values). */
  private static final List<String> ALGORITHMS = List.of("RSA", "EC");

  private ClusterCredentials() {}

  /** As {@code new KubernetesClientBuilder().build()} would configure itself. */
  public static Config load() {
    return withKeyAlgorithm(Config.autoConfigure(null));
  }

  /** From a kubeconfig's content (its current context). */
  public static Config fromKubeconfig(String kubeconfig) {
    return withKeyAlgorithm(Config.fromKubeconfig(kubeconfig));
  }

  /** Sets {@code clientKeyAlgo} when the client key is PKCS#8 and fabric8 left it unset. */
  static Config withKeyAlgorithm(Config config) {
    if (config.getClientKeyAlgo() != null) {
      return config; // SEC1 or PKCS#1 header, or set explicitly (kubernetes.certs.client.key.algo)
    }
    String pem = clientKeyPem(config);
    if (pem == null) {
      return config; // a token or no credentials
    }
    String where =
        config.getClientKeyFile() != null
            ? "client-key " + config.getClientKeyFile()
            : "client-key-data of the kubeconfig's current user";
    config.setClientKeyAlgo(algorithm(pem, where));
    return config;
  }

  /**
   * The fabric8 algorithm name of a PEM private key: RSA or EC; the header decides for PKCS#1 and
   * SEC1, the key itself for PKCS#8. {@code where} names the key in the error.
   */
  static String algorithm(String pem, String where) {
    Matcher m = PEM.matcher(pem);
    if (!m.find()) {
      throw new IllegalArgumentException(where + ": not a PEM private key");
    }
    switch (m.group(1)) {
      case "RSA PRIVATE KEY":
        return "RSA";
      case "EC PRIVATE KEY":
        return "EC";
      case "PRIVATE KEY":
        break;
      case "ENCRYPTED PRIVATE KEY":
        throw new IllegalArgumentException(
            where + ": an encrypted private key; the Kubernetes client needs it unencrypted");
      default:
        throw new IllegalArgumentException(where + ": a " + m.group(1) + ", not a private key");
    }
    byte[] der = Base64.getMimeDecoder().decode(m.group(2));
    for (String algorithm : ALGORITHMS) {
      try {
        KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        return algorithm;
      } catch (GeneralSecurityException e) {
        // not this algorithm
      }
    }
    throw new IllegalArgumentException(
        where + ": a PKCS#8 key that is neither RSA nor EC (Ed25519?); the Kubernetes client"
            + " supports RSA and EC client keys");
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
