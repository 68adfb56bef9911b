package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A Job whose start the API server refuses for longer than JOSDK's default retries last (five,
 * about 26 s) still starts once the refusal ends: the reconcile is retried without a limit. The
 * refusal is a ValidatingAdmissionPolicy of the real API server that denies unsuspending Jobs in
 * one namespace (as a policy engine or an outage of a webhook with failurePolicy Fail would), and
 * the API server's own count of its denials says how often the operator tried.
 */
class ReconcileRetryE2EIT {
  private static final String NAMESPACE = "refused-start";
  private static final String POLICY = "e2e-refuse-start";
  private static final Pattern DENIALS =
      Pattern.compile("^apiserver_validating_admission_policy_check_total\\{(.*)} (\\S+)$");

  /**
   * More than the six attempts (one and five retries) after which JOSDK's default stops: with it,
   * this count is never reached and the test fails here.
   */
  private static final int ATTEMPTS = 8;

  @Test
  void aJobWhoseStartIsRefusedForAMinuteStartsOnceTheRefusalEnds() {
    Scenario s = new Scenario(NAMESPACE);
    var client = s.client;
    s.queue("refused-start-cq", "2");
    HasMetadata policy = client.resource(policy()).create();
    HasMetadata binding = client.resource(AdmissionPolicies.binding(POLICY)).create();
    try {
      // The policy is in force once an unsuspend of an unmanaged Job (no queue label) is refused.
      Job probe = ScenarioObjects.job(NAMESPACE, "probe", "lq", 1, "1");
      probe.getMetadata().setLabels(null);
      probe.getSpec().setSuspend(true);
      client.resource(probe).create();
      await().atMost(Duration.ofSeconds(20)).until(() -> probeRefused(client));
      long before = denials(client);

      s.submit(ScenarioObjects.job(NAMESPACE, "refused", "lq", 1, "1"));
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(s.condition("refused", "Admitted"))
                      .hasValueSatisfying(c -> assertThat(c.status).isEqualTo("True")));
      // Admitted, and every start refused: the operator keeps trying past the default's six.
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> denials(client) - before >= ATTEMPTS);
      assertThat(s.running("refused")).isFalse();

      client.resource(binding).delete();
      binding = null;
      s.awaitRunning("refused");
    } finally {
      if (binding != null) {
        client.resource(binding).delete();
      }
      client.resource(policy).delete();
    }
  }

  /**
   * Whether unsuspending the probe Job is refused now; an unsuspend let through (the policy not yet
   * in force) is undone, so that the next try is an unsuspend again.
   */
  private static boolean probeRefused(io.fabric8.kubernetes.client.KubernetesClient client) {
    var probe = client.batch().v1().jobs().inNamespace(NAMESPACE).withName("probe");
    if (!Boolean.TRUE.equals(probe.get().getSpec().getSuspend())) {
      probe.edit(
          j -> {
            j.getSpec().setSuspend(true);
            return j;
          });
    }
    try {
      probe.edit(
          j -> {
            j.getSpec().setSuspend(false);
            return j;
          });
      return false;
    } catch (KubernetesClientException e) {
      assertThat(e).hasMessageContaining("starts refused");
      return true;
    }
  }

  /** The API server's count of this policy's denials so far. */
  private static long denials(io.fabric8.kubernetes.client.KubernetesClient client) {
    long total = 0;
    for (String line : client.raw("/metrics").split("\n")) {
      Matcher m = DENIALS.matcher(line);
      if (m.matches()
          && m.group(1).contains("policy=\"" + POLICY + "\"")
          && m.group(1).contains("enforcement_action=\"deny\"")) {
        total += (long) Double.parseDouble(m.group(2));
      }
    }
    return total;
  }

  private static ValidatingAdmissionPolicy policy() {
    return AdmissionPolicies.denying(
        POLICY,
        """
        namespaceSelector:
          matchLabels:
            kubernetes.io/metadata.name: %s
        resourceRules:
          - apiGroups: ["batch"]
            apiVersions: ["v1"]
            operations: ["UPDATE"]
            resources: ["jobs"]
        """
            .formatted(NAMESPACE),
        "!(oldObject.spec.suspend == true && object.spec.suspend == false)",
        "starts refused (ReconcileRetryE2EIT)");
  }
}
