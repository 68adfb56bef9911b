package dev.berth.webhook.tls;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The CA in a Secret of the operator's namespace, shared by all replicas. Creation is a plain
 * create (409 means another replica won, so read theirs); replacement is an update carrying the
 * resourceVersion we read, so two replicas rotating at once cannot both win.
 */
public final class SecretCaStore implements CaStore {
  static final String CERT = "ca.crt";
  static final String KEY = "ca.key";

  private final KubernetesClient client;
  private final String namespace;
  private final String name;

  public SecretCaStore(KubernetesClient client, String namespace, String name) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
  }

  @Override
  public CertificateAuthority loadOrCreate(Supplier<CertificateAuthority> generate) {
    Secret existing = read();
    if (existing != null) {
      return decode(existing);
    }
    CertificateAuthority ca = generate.get();
    try {
      client.secrets().inNamespace(namespace).resource(encode(ca, null)).create();
      return ca;
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      return decode(read());
    }
  }

  @Override
  public CertificateAuthority replace(CertificateAuthority expected, CertificateAuthority next) {
    Secret existing = read();
    if (existing == null) {
      return loadOrCreate(() -> next);
    }
    CertificateAuthority stored = decode(existing);
    if (!stored.certificate().equals(expected.certificate())) {
      return stored; // another replica rotated first
    }
    try {
      client
          .secrets()
          .inNamespace(namespace)
          .resource(encode(next, existing.getMetadata().getResourceVersion()))
          .update();
      return next;
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      return decode(read());
    }
  }

  private Secret read() {
    return client.secrets().inNamespace(namespace).withName(name).get();
  }

  private Secret encode(CertificateAuthority ca, String resourceVersion) {
    return new SecretBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withResourceVersion(resourceVersion)
        .addToLabels("app.kubernetes.io/part-of", "berth")
        .endMetadata()
        .withType("Opaque")
        .withData(Map.of(CERT, b64(ca.certificatePem()), KEY, b64(ca.privateKeyPem())))
        .build();
  }

  private static CertificateAuthority decode(Secret secret) {
    Map<String, String> data = secret.getData();
    return CertificateAuthority.fromPem(unb64(data.get(CERT)), unb64(data.get(KEY)));
  }

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  private static String unb64(String s) {
    return new String(Base64.getDecoder().decode(s), StandardCharsets.UTF_8);
  }
}
