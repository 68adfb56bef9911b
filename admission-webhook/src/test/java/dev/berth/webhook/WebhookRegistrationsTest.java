package dev.berth.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfigBuilder;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The policies docs/webhooks.md promises. */
class WebhookRegistrationsTest {
  private final WebhookRegistrations registrations =
      new WebhookRegistrations(
          path -> new WebhookClientConfigBuilder().withUrl("https://x" + path).build(),
          List.of("kube-system", "berth-system"));

  @Test
  void berthObjectsFailClosedWithTheFullTimeout() {
    Map<String, ValidatingWebhook> hooks =
        registrations.validating().getWebhooks().stream()
            .collect(Collectors.toMap(ValidatingWebhook::getName, Function.identity()));
    assertThat(hooks).hasSize(13);
    assertThat(hooks.get("vadmissioncheck.berth.dev").getFailurePolicy()).isEqualTo("Fail");
    assertThat(hooks.get("vprovisioningrequestconfig.berth.dev").getFailurePolicy())
        .isEqualTo("Fail");
    assertThat(hooks.get("vclusterqueue.berth.dev").getFailurePolicy()).isEqualTo("Fail");
    assertThat(hooks.get("vclusterqueue.berth.dev").getTimeoutSeconds()).isEqualTo(10);
    assertThat(hooks.get("vworkload-status.berth.dev").getRules().get(0).getResources())
        .containsExactly("workloads/status");
    assertThat(hooks.values())
        .allSatisfy(
            h -> {
              assertThat(h.getSideEffects()).isEqualTo("None");
              assertThat(h.getAdmissionReviewVersions()).containsExactly("v1");
            });
  }

  @Test
  void everyJobIsValidatedLabelledOrNotAndFailsFast() {
    for (String name : List.of("vjob.berth.dev", "vjobset.berth.dev")) {
      ValidatingWebhook job = validating(name);
      assertThat(job.getTimeoutSeconds()).isEqualTo(5);
      assertThat(job.getFailurePolicy()).isEqualTo("Fail");
      // Which namespaces Berth manages follows the ClusterQueues: no selector could say it.
      assertThat(job.getObjectSelector()).as(name).isNull();
      assertThat(job.getRules().get(0).getOperations()).containsExactly("CREATE", "UPDATE");
      assertThat(job.getNamespaceSelector().getMatchExpressions().get(0).getValues())
          .containsExactly("kube-system", "berth-system");
    }
  }

  @Test
  void onlyUpdatesOfGatedPodsAreValidatedAndFailClosed() {
    ValidatingWebhook pod = validating("vpod.berth.dev");
    assertThat(pod.getClientConfig().getUrl()).isEqualTo("https://x/validate--v1-pod");
    assertThat(pod.getRules())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getResources()).containsExactly("pods");
              assertThat(r.getOperations()).containsExactly("UPDATE");
            });
    assertThat(pod.getFailurePolicy()).isEqualTo("Fail");
    assertThat(pod.getObjectSelector().getMatchExpressions())
        .singleElement()
        .satisfies(e -> assertThat(e.getKey()).isEqualTo("berth.dev/podset"));
    assertThat(pod.getMatchConditions())
        .singleElement()
        .satisfies(
            c -> assertThat(c.getExpression()).isEqualTo(WebhookRegistrations.GATED_BY_BERTH));
  }

  private ValidatingWebhook validating(String name) {
    return registrations.validating().getWebhooks().stream()
        .filter(h -> h.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void onlyTheDefaultQueueLookupFailsOpen() {
    Map<String, String> policies =
        registrations.mutating().getWebhooks().stream()
            .collect(Collectors.toMap(MutatingWebhook::getName, MutatingWebhook::getFailurePolicy));
    assertThat(policies)
        .containsEntry("mjob.berth.dev", "Fail")
        .containsEntry("mjobset.berth.dev", "Fail")
        .containsEntry("mjob-default-queue.berth.dev", "Ignore")
        .containsEntry("mjobset-default-queue.berth.dev", "Ignore")
        .containsEntry("mclusterqueue.berth.dev", "Fail");
  }

  @Test
  void onlyLabelledPodsAreGatedOnCreateAndFailClosed() {
    MutatingWebhook pod =
        registrations.mutating().getWebhooks().stream()
            .filter(h -> h.getName().equals("mpod.berth.dev"))
            .findFirst()
            .orElseThrow();
    assertThat(pod.getClientConfig().getUrl()).isEqualTo("https://x/mutate--v1-pod");
    assertThat(pod.getRules())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getApiGroups()).containsExactly("");
              assertThat(r.getApiVersions()).containsExactly("v1");
              assertThat(r.getResources()).containsExactly("pods");
              assertThat(r.getOperations()).containsExactly("CREATE");
            });
    assertThat(pod.getFailurePolicy()).isEqualTo("Fail");
    assertThat(pod.getSideEffects()).isEqualTo("None");
    assertThat(pod.getTimeoutSeconds()).isEqualTo(5);
    assertThat(pod.getObjectSelector().getMatchExpressions())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getKey()).isEqualTo("berth.dev/podset");
              assertThat(e.getOperator()).isEqualTo("Exists");
            });
    assertThat(pod.getNamespaceSelector().getMatchExpressions().get(0).getValues())
        .containsExactly("kube-system", "berth-system");
  }
}
