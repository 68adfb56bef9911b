package dev.berth.e2e.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.api.v1beta1.Admission;
import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Nobody starts a managed Job around the queue, moves it while it runs, or writes an admission:
 * checked with a real second user (impersonation) against the real API server.
 */
class ManagedJobSecurityIT {
  static final String NS = "webhook-security";
  private static KubernetesClient operator;
  private static KubernetesClient user;

  @BeforeAll
  static void setUp() {
    WebhookTestCluster cluster = WebhookTestCluster.get();
    cluster.ensureNamespace(NS);
    operator = cluster.admin();
    user = cluster.user();
    // A suspended Job may move only to a LocalQueue that exists.
    operator
        .resource(
            Serialization.unmarshal(
                """
        apiVersion: berth.dev/v1beta1
        kind: LocalQueue
        metadata: {name: team-b, namespace: %s}
        spec: {clusterQueue: team-b}
        """
                    .formatted(NS),
                GenericKubernetesResource.class))
        .serverSideApply();
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(30))
        .until(() -> cluster.localQueues().exists(NS, "team-b"));
  }

  private static Job createJob(String name) {
    user.resource(
            Serialization.unmarshal(
                """
        apiVersion: batch/v1
        kind: Job
        metadata: {name: %s, namespace: %s, labels: {berth.dev/queue-name: team-a}}
        spec:
          template:
            spec:
              restartPolicy: Never
              containers: [{name: main, image: busybox}]
        """
                    .formatted(name, NS),
                Job.class))
        .create();
    return user.batch().v1().jobs().inNamespace(NS).withName(name).get();
  }

  private static Job unsuspend(KubernetesClient as, String name) {
    return as.batch()
        .v1()
        .jobs()
        .inNamespace(NS)
        .withName(name)
        .edit(
            j -> {
              j.getSpec().setSuspend(false);
              return j;
            });
  }

  @Test
  void userCannotUnsuspendAManagedJob() {
    createJob("user-start");
    assertThatThrownBy(() -> unsuspend(user, "user-start"))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("denied the request")
        .hasMessageContaining("spec.suspend")
        .hasMessageContaining("can only be unsuspended by the Berth operator");
    assertThat(
            user.batch()
                .v1()
                .jobs()
                .inNamespace(NS)
                .withName("user-start")
                .get()
                .getSpec()
                .getSuspend())
        .isTrue();
  }

  @Test
  void userCannotUnsuspendByDroppingTheQueueLabel() {
    createJob("user-sneak");
    assertThatThrownBy(
            () ->
                user.batch()
                    .v1()
                    .jobs()
                    .inNamespace(NS)
                    .withName("user-sneak")
                    .edit(
                        j -> {
                          j.getMetadata().getLabels().remove(Berth.QUEUE_NAME_LABEL);
                          j.getSpec().setSuspend(false);
                          return j;
                        }))
        .hasMessageContaining("spec.suspend");
  }

  @Test
  void operatorUnsuspendsAndThenTheQueueIsFixed() {
    createJob("running");
    assertThat(unsuspend(operator, "running").getSpec().getSuspend()).isFalse();
    assertThatThrownBy(
            () ->
                user.batch()
                    .v1()
                    .jobs()
                    .inNamespace(NS)
                    .withName("running")
                    .edit(
                        j -> {
                          j.getMetadata().getLabels().put(Berth.QUEUE_NAME_LABEL, "team-b");
                          return j;
                        }))
        .hasMessageContaining("metadata.labels[berth.dev/queue-name]")
        .hasMessageContaining("cannot be changed while the Job is running");
    assertThatThrownBy(
            () ->
                user.batch()
                    .v1()
                    .jobs()
                    .inNamespace(NS)
                    .withName("running")
                    .edit(
                        j -> {
                          j.getMetadata().getLabels().remove(Berth.QUEUE_NAME_LABEL);
                          return j;
                        }))
        .hasMessageContaining("cannot be removed while the Job is running");
  }

  @Test
  void queueOfASuspendedJobMayChange() {
    createJob("requeue");
    Job moved =
        user.batch()
            .v1()
            .jobs()
            .inNamespace(NS)
            .withName("requeue")
            .edit(
                j -> {
                  j.getMetadata().getLabels().put(Berth.QUEUE_NAME_LABEL, "team-b");
                  return j;
                });
    assertThat(moved.getMetadata().getLabels()).containsEntry(Berth.QUEUE_NAME_LABEL, "team-b");
  }

  @Test
  void userCannotUnsuspendAManagedJobSet() {
    user.resource(
            Serialization.unmarshal(
                """
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata: {name: js-start, namespace: %s, labels: {berth.dev/queue-name: team-a}}
        spec:
          replicatedJobs:
          - {name: w, replicas: 1, template: {spec: {template: {spec: {containers: [{name: c, image: c}]}}}}}
        """
                    .formatted(NS),
                GenericKubernetesResource.class))
        .create();
    assertThatThrownBy(
            () ->
                user.genericKubernetesResources("jobset.x-k8s.io/v1alpha2", "JobSet")
                    .inNamespace(NS)
                    .withName("js-start")
                    .edit(
                        js -> {
                          ((Map<String, Object>) js.getAdditionalProperties().get("spec"))
                              .put("suspend", false);
                          return js;
                        }))
        .hasMessageContaining("spec.suspend")
        .hasMessageContaining(
            "a JobSet managed by Berth can only be unsuspended by the Berth operator");
  }

  private static Workload createWorkload(String name) {
    return user.resources(Workload.class)
        .inNamespace(NS)
        .resource(
            Serialization.unmarshal(
                """
        apiVersion: berth.dev/v1beta1
        kind: Workload
        metadata: {name: %s, namespace: %s}
        spec:
          queueName: team-a
          podSets:
          - name: main
            count: 2
            template: {spec: {containers: [{name: c, image: trainer:1}]}}
        """
                    .formatted(name, NS),
                Workload.class))
        .create();
  }

  private static void admit(Workload wl) {
    WorkloadStatus status = new WorkloadStatus();
    status.conditions = List.of(new Condition("QuotaReserved", "True", "QuotaReserved", "ok"));
    status.conditions.get(0).lastTransitionTime = "2026-01-01T00:00:00Z";
    Admission admission = new Admission();
    admission.clusterQueue = "cq";
    PodSetAssignment a = new PodSetAssignment();
    a.name = "main";
    a.count = 2;
    a.flavors = Map.of("cpu", "default");
    admission.podSetAssignments = List.of(a);
    status.admission = admission;
    wl.setStatus(status);
  }

  @Test
  void userCannotWriteTheAdmission() {
    Workload wl = createWorkload("user-admits");
    admit(wl);
    assertThatThrownBy(
            () -> user.resources(Workload.class).inNamespace(NS).resource(wl).updateStatus())
        .hasMessageContaining("status.admission")
        .hasMessageContaining("only the Berth operator may write a Workload's admission");
  }

  @Test
  void podSetsAreFixedWhileQuotaIsReserved() {
    Workload wl = createWorkload("reserved");
    admit(wl);
    operator.resources(Workload.class).inNamespace(NS).resource(wl).updateStatus();
    assertThatThrownBy(
            () ->
                user.resources(Workload.class)
                    .inNamespace(NS)
                    .withName("reserved")
                    .edit(
                        w -> {
                          w.getSpec()
                              .podSets
                              .get(0)
                              .template
                              .getSpec()
                              .getContainers()
                              .get(0)
                              .setImage("other:2");
                          return w;
                        }))
        .hasMessageContaining("spec.podSets[0].template")
        .hasMessageContaining("field is immutable while quota is reserved");
  }

  @Test
  void topologyLevelsAreImmutable() {
    user.resource(
            Serialization.unmarshal(
                """
        apiVersion: berth.dev/v1beta1
        kind: Topology
        metadata: {name: sec-topology}
        spec: {levels: [{nodeLabel: block}, {nodeLabel: rack}]}
        """,
                GenericKubernetesResource.class))
        .create();
    assertThatThrownBy(
            () ->
                user.genericKubernetesResources(Berth.API_VERSION, "Topology")
                    .withName("sec-topology")
                    .edit(
                        t -> {
                          ((Map<String, Object>) t.getAdditionalProperties().get("spec"))
                              .put("levels", List.of(Map.of("nodeLabel", "row")));
                          return t;
                        }))
        .hasMessageContaining("spec.levels")
        .hasMessageContaining("field is immutable");
  }
}
