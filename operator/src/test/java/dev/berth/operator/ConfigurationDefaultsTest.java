package dev.berth.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.checks.RequeueBackoff;
import dev.berth.operator.admission.WriterSettings;
import dev.berth.operator.capacity.CapacitySettings;
import dev.berth.operator.config.Configuration;
import dev.berth.operator.config.ConfigurationLoader;
import dev.berth.operator.kube.WatchSilence;
import dev.berth.operator.usage.UtilizationSettings;
import dev.berth.operator.visibility.HttpsSettings;
import dev.berth.webhook.WebhookSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The configuration's defaults are what the operator ran with before it had a configuration file,
 * when no variable was set: the values below are the defaults its environment readers had.
 */
class ConfigurationDefaultsTest {
  private final Configuration defaults = ConfigurationLoader.defaults();

  @Test
  void theProcessSettingsAreTheFormerDefaults() {
    assertThat(defaults.namespace()).isEqualTo("berth-system");
    assertThat(defaults.leaderElection())
        .isEqualTo(new Configuration.LeaderElection(true, "berth-leader", true));
    assertThat(defaults.metrics().port()).isEqualTo(8080);
    assertThat(defaults.webhook().enable()).isTrue();
    assertThat(defaults.webhook().port()).isEqualTo(9443);
    assertThat(defaults.webhook().operatorIdentity())
        .isEqualTo("system:serviceaccount:berth-system:berth");
    assertThat(defaults.fairSharing().enable()).isFalse();
    assertThat(defaults.integrations().frameworks())
        .containsExactly(
            "batch/job", "jobset.x-k8s.io/jobset", "pod", "ray.io/rayjob", "ray.io/raycluster");
  }

  @Test
  void theWebhookServerRunsAsItDidFromAnEmptyEnvironment() {
    assertThat(BerthOperator.webhookSettings(defaults))
        .isEqualTo(
            new WebhookSettings(
                9443,
                16,
                "system:serviceaccount:berth-system:berth",
                "berth-system",
                "berth-webhook",
                "berth-webhook-ca",
                null,
                List.of("berth-validating"),
                List.of("berth-mutating"),
                Duration.ofDays(3650),
                Duration.ofDays(365),
                Duration.ofHours(1),
                List.of(),
                true))
        .isEqualTo(WebhookSettings.fromEnvironment(Map.of()));
    assertThat(
            BerthOperator.webhookSettings(
                    ConfigurationLoader.fromEnvironment(Map.of("BERTH_CERT_MODE", "cert-manager")))
                .certDirectory())
        .hasToString("/tmp/berth-certs");
  }

  @Test
  void theSectionsMakeTheFormerDefaultSettings() {
    assertThat(WriterSettings.of(defaults.clientConnection()))
        .isEqualTo(new WriterSettings(8, 20_000, 100, 200, 5, 10))
        .isEqualTo(WriterSettings.DEFAULT);
    assertThat(defaults.clientConnection().watchSilence())
        .isEqualTo(Duration.ofSeconds(120))
        .isEqualTo(WatchSilence.DEFAULT);
    assertThat(defaults.clientConnection().nativeTls()).isTrue();
    assertThat(WaitForPodsReady.of(defaults.waitForPodsReady()))
        .isEqualTo(
            new WaitForPodsReady(
                false,
                Duration.ofSeconds(300),
                false,
                null,
                WaitForPodsReady.RequeuingTimestamp.Eviction,
                new RequeueBackoff(60, 3600, null)))
        .isEqualTo(WaitForPodsReady.DEFAULT);
    assertThat(defaults.usage().reportInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(CapacitySettings.of(defaults.capacity()))
        .isEqualTo(
            new CapacitySettings(
                Set.of(
                    "node.kubernetes.io/not-ready",
                    "node.kubernetes.io/unreachable",
                    "node.kubernetes.io/unschedulable",
                    "node.kubernetes.io/network-unavailable",
                    "node.kubernetes.io/out-of-service",
                    "node.cloudprovider.kubernetes.io/shutdown",
                    "ToBeDeletedByClusterAutoscaler",
                    "berth.dev/maintenance")))
        .isEqualTo(CapacitySettings.defaults());
    assertThat(UtilizationSettings.of(defaults.utilization())).isEqualTo(UtilizationSettings.off());
    assertThat(HttpsSettings.of(defaults.visibility())).isEqualTo(new HttpsSettings(8443, false));
  }

  @Test
  void theDcgmJoinKeepsItsFormerDefaultsOnceItHasAUrl() {
    UtilizationSettings on =
        UtilizationSettings.of(
            ConfigurationLoader.fromEnvironment(Map.of("BERTH_PROMETHEUS_URL", "http://p:9090/"))
                .utilization());
    assertThat(on.prometheus()).hasToString("http://p:9090");
    assertThat(on.delay()).isEqualTo(Duration.ofSeconds(60));
    assertThat(on.giveUpAfter()).isEqualTo(Duration.ofSeconds(600));
    assertThat(on.queryTimeout()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void anOperatorConfigIsItsSettingsOverTheDefaults() {
    WaitForPodsReady podsReady =
        new WaitForPodsReady(
            true,
            Duration.ofSeconds(30),
            true,
            Duration.ofSeconds(20),
            WaitForPodsReady.RequeuingTimestamp.Creation,
            new RequeueBackoff(1, 10, 2));
    Configuration c =
        new OperatorConfig("ns", false, "lease", 0, false, 0, "me", false, true, podsReady)
            .configuration();
    assertThat(WaitForPodsReady.of(c.waitForPodsReady())).isEqualTo(podsReady);
    assertThat(c.namespace()).isEqualTo("ns");
    assertThat(c.leaderElection())
        .isEqualTo(new Configuration.LeaderElection(false, "lease", false));
    assertThat(c.webhook().operatorIdentity()).isEqualTo("me");
    assertThat(c.fairSharing().enable()).isTrue();
    assertThat(c.clientConnection()).isEqualTo(defaults.clientConnection());
  }
}
