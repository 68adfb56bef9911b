package dev.berth.e2e.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.webhook.ChartWebhooks;
import dev.berth.webhook.tls.CaBundlePatcher;
import dev.berth.webhook.tls.CertificateAuthority;
import dev.berth.webhook.tls.KeyMaterial;
import dev.berth.webhook.tls.SecretCaStore;
import dev.berth.webhook.tls.SelfSignedCertificates;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Certificates against the real API server: shared CA for replicas, rotation without a gap. */
class CertificateRotationIT {
  private static final String CANARY = "rotation-canary.berth.dev";
  private static final String PROBE =
      """
      apiVersion: berth.dev/v1beta1
      kind: ClusterQueue
      metadata: {name: rotation-probe}
      spec: {namespaceSelector: {matchExpressions: [{key: a, operator: Is}]}}
      """;

  private static void assertWebhookAnswers(KubernetesClient client) {
    assertThatThrownBy(
            () ->
                client
                    .resource(Serialization.unmarshal(PROBE, GenericKubernetesResource.class))
                    .dryRun()
                    .create())
        .hasMessageContaining("denied the request");
  }

  /**
   * Waits until the API server uses the configuration revision that carries the new bundle. The API
   * server loads each webhook configuration object whole, so a canary webhook written into the same
   * object after the bundle becomes effective no earlier than the bundle does: once a ConfigMap
   * with the canary label is refused by the canary, the bundle is in use.
   */
  private static void awaitBundleLoaded(KubernetesClient client) {
    var configs =
        client
            .admissionRegistration()
            .v1()
            .validatingWebhookConfigurations()
            .withName(ChartWebhooks.VALIDATING_NAME);
    configs.edit(
        c -> {
          var first = c.getWebhooks().get(0);
          String url = first.getClientConfig().getUrl();
          c.getWebhooks()
              .add(
                  new ValidatingWebhookBuilder()
                      .withName(CANARY)
                      .withAdmissionReviewVersions("v1")
                      .withSideEffects("None")
                      .withFailurePolicy("Fail")
                      .withTimeoutSeconds(5)
                      .withNewClientConfig()
                      .withUrl(
                          url.substring(0, url.indexOf('/', "https://".length())) + "/not-served")
                      .withCaBundle(first.getClientConfig().getCaBundle())
                      .endClientConfig()
                      .withNewObjectSelector()
                      .addToMatchLabels(CANARY, "true")
                      .endObjectSelector()
                      .addNewRule()
                      .withApiGroups("")
                      .withApiVersions("v1")
                      .withResources("configmaps")
                      .withOperations("CREATE")
                      .endRule()
                      .build());
          return c;
        });
    try {
      ConfigMap probe =
          new ConfigMapBuilder()
              .withNewMetadata()
              .withName("rotation-canary")
              .withNamespace("default")
              .addToLabels(CANARY, "true")
              .endMetadata()
              .build();
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThatThrownBy(() -> client.resource(probe).dryRun().create())
                      .hasMessageContaining(CANARY));
    } finally {
      configs.edit(
          c -> {
            c.getWebhooks().removeIf(w -> CANARY.equals(w.getName()));
            return c;
          });
    }
  }

  @Test
  void replicasShareOneCaThroughTheSecret() {
    WebhookTestCluster cluster = WebhookTestCluster.get();
    cluster.ensureNamespace("berth-system");
    KubernetesClient client = cluster.admin();
    List<String> bundles = new ArrayList<>();
    SelfSignedCertificates first =
        new SelfSignedCertificates(
            new SecretCaStore(client, "berth-system", "berth-webhook-ca"),
            List.of("svc"),
            List.of(),
            Duration.ofDays(30),
            Duration.ofDays(3),
            bundles::add);
    SelfSignedCertificates second =
        new SelfSignedCertificates(
            new SecretCaStore(client, "berth-system", "berth-webhook-ca"),
            List.of("svc"),
            List.of(),
            Duration.ofDays(30),
            Duration.ofDays(3),
            bundles::add);
    assertThat(second.ca().certificate()).isEqualTo(first.ca().certificate());
    assertThat(bundles).hasSize(2).containsOnly(first.ca().certificatePem());
    assertThat(first.current().leaf()).isNotEqualTo(second.current().leaf());
  }

  @Test
  void caRotatesUnderTheApiServerWithoutRefusals() throws Exception {
    WebhookTestCluster cluster = WebhookTestCluster.get();
    KubernetesClient client = cluster.admin();
    CaBundlePatcher patcher =
        new CaBundlePatcher(
            client, List.of(ChartWebhooks.VALIDATING_NAME), List.of(ChartWebhooks.MUTATING_NAME));
    CertificateAuthority old = cluster.ca();
    CertificateAuthority next = CertificateAuthority.generate("rotated-ca", Duration.ofDays(1));
    KeyMaterial original = cluster.keys().current();
    try {
      // The order SelfSignedCertificates uses: trust both CAs, then serve under the new one.
      patcher.accept(next.certificatePem() + old.certificatePem());
      assertWebhookAnswers(client);
      // SelfSignedCertificates serves under the new CA one check period later, by when the API
      // server has loaded the new bundle; here the test waits for exactly that load.
      awaitBundleLoaded(client);
      cluster.keys().update(next.issue(List.of(), List.of("127.0.0.1"), Duration.ofDays(1)));
      assertWebhookAnswers(client);
      String stored =
          client
              .admissionRegistration()
              .v1()
              .validatingWebhookConfigurations()
              .withName(ChartWebhooks.VALIDATING_NAME)
              .get()
              .getWebhooks()
              .get(0)
              .getClientConfig()
              .getCaBundle();
      assertThat(new String(Base64.getDecoder().decode(stored), StandardCharsets.UTF_8))
          .contains(next.certificatePem().trim())
          .contains(old.certificatePem().trim());
    } finally {
      cluster.keys().update(original);
      patcher.accept(old.certificatePem());
    }
    assertWebhookAnswers(client);
  }
}
