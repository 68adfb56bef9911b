package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.config.Configuration;
import dev.berth.operator.integration.jobset.JobSet;
import dev.berth.testing.Jobs;
import dev.berth.webhook.integration.Framework;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A kind left out of {@code integrations.frameworks} is neither reconciled nor intercepted: with
 * only JobSet on (the operator's configuration and the chart's webhooks rendered from the same
 * list), a team member's Jobs in a namespace Berth manages are stored as written (not suspended, an
 * unlabelled one not refused) and get no Workload, while a JobSet beside them is still suspended by
 * the webhook, given a Workload and admitted.
 */
class DisabledIntegrationIT {
  private static final String NAMESPACE = "team-disabled";

  @Test
  void aDisabledKindIsNeitherReconciledNorIntercepted() throws IOException {
    String jobSetOnly = Framework.JOBSET.frameworkName();
    try (LoopbackBerth berth =
        LoopbackBerth.start(
            only(List.of(jobSetOnly)), NAMESPACE, "integrations.frameworks={" + jobSetOnly + "}")) {
      KubernetesClient admin = berth.admin;
      KubernetesClient member = berth.member;
      // A ClusterQueue selecting every namespace: NAMESPACE is one Berth manages.
      admin.resource(ScenarioObjects.flavor("disabled-flavor", Map.of())).create();
      admin
          .resource(ScenarioObjects.clusterQueue("disabled-cq", "disabled-flavor", "cpu", "8"))
          .create();
      admin.resource(ScenarioObjects.localQueue(NAMESPACE, "lq", "disabled-cq")).create();

      Job labelled =
          member
              .resource(
                  Jobs.named("labelled")
                      .in(NAMESPACE)
                      .queue("lq")
                      .suspended(false)
                      .request("cpu", "1")
                      .build())
              .create();
      // Not intercepted: the mutating webhook would have suspended it, and the validating one
      // refused an unlabelled Job in a managed namespace.
      assertThat(labelled.getSpec().getSuspend()).isFalse();
      assertThat(labelled.getMetadata().getAnnotations())
          .doesNotContainKey(Berth.SUBMITTED_AT_ANNOTATION);
      Job unlabelled =
          member
              .resource(
                  Jobs.named("unlabelled")
                      .in(NAMESPACE)
                      .suspended(false)
                      .request("cpu", "1")
                      .build())
              .create();
      assertThat(unlabelled.getSpec().getSuspend()).isFalse();

      // The enabled kind beside it: suspended at creation, given a Workload, admitted.
      JobSet trainer = JobSetE2EIT.jobSet(NAMESPACE, "trainer");
      trainer.getSpec().suspend = null; // the webhook's to set
      JobSet created = member.resource(trainer).create();
      assertThat(created.getSpec().suspend).isTrue();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                JobSet js =
                    admin.resources(JobSet.class).inNamespace(NAMESPACE).withName("trainer").get();
                return Boolean.FALSE.equals(js.getSpec().suspend);
              });
      // Not reconciled: the operator, which has by now reconciled the JobSet created after
      // them, made no Workload for either Job, and left the labelled one running.
      await()
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(5))
          .until(
              () ->
                  admin.resources(Workload.class).inNamespace(NAMESPACE).list().getItems().stream()
                      .map(w -> w.getMetadata().getOwnerReferences().get(0).getKind())
                      .toList(),
              kinds -> kinds.equals(List.of("JobSet")));
      assertThat(
              admin
                  .batch()
                  .v1()
                  .jobs()
                  .inNamespace(NAMESPACE)
                  .withName("labelled")
                  .get()
                  .getSpec()
                  .getSuspend())
          .isFalse();
    }
  }

  /** The operator's default configuration with only {@code frameworks} on. */
  private static Configuration only(List<String> frameworks) {
    Configuration c = LoopbackBerth.defaultConfiguration();
    return new Configuration(
        c.namespace(),
        c.leaderElection(),
        c.metrics(),
        c.webhook(),
        c.internalCertManagement(),
        c.clientConnection(),
        c.waitForPodsReady(),
        c.fairSharing(),
        new Configuration.Integrations(frameworks),
        c.resources(),
        c.usage(),
        c.capacity(),
        c.utilization(),
        c.visibility(),
        c.admissionFairSharing());
  }
}
