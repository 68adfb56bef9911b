package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.Topology;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import org.junit.jupiter.api.Test;

/** Immutability: what may not change after create, or while quota is held or a Job runs. */
class UpdateRulesTest {
  private static final String RESERVED =
      """
      status:
        conditions:
        - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: ok}
      """;

  @Test
  void localQueueClusterQueueIsImmutable() {
    String lq =
        "apiVersion: berth.dev/v1beta1\nkind: LocalQueue\nmetadata: {name: q, namespace: n}\n"
            + "spec: {clusterQueue: a}\n";
    LocalQueue old = TestObjects.parse(lq, LocalQueue.class);
    LocalQueue changed =
        TestObjects.parse(lq.replace("clusterQueue: a", "clusterQueue: b"), LocalQueue.class);
    assertThat(BerthValidators.localQueueUpdate(old, changed))
        .extracting(FieldError::path)
        .containsExactly("spec.clusterQueue");
    assertThat(BerthValidators.localQueueUpdate(old, old)).isEmpty();
  }

  @Test
  void flavorTopologyNameIsImmutable() {
    ResourceFlavor old = TestObjects.parse(ObjectRulesTest.RF, ResourceFlavor.class);
    ResourceFlavor changed =
        TestObjects.parse(
            ObjectRulesTest.RF.replace("topologyName: dc1", "topologyName: dc2"),
            ResourceFlavor.class);
    assertThat(BerthValidators.resourceFlavorUpdate(old, changed))
        .extracting(FieldError::path)
        .containsExactly("spec.topologyName");
  }

  @Test
  void topologyLevelsAreImmutable() {
    String t =
        "apiVersion: berth.dev/v1beta1\nkind: Topology\nmetadata: {name: t}\n"
            + "spec: {levels: [{nodeLabel: block}, {nodeLabel: rack}]}\n";
    Topology old = TestObjects.parse(t, Topology.class);
    Topology changed = TestObjects.parse(t.replace("rack", "row"), Topology.class);
    assertThat(BerthValidators.topologyUpdate(old, changed))
        .extracting(FieldError::path)
        .containsExactly("spec.levels");
  }

  @Test
  void workloadSpecIsImmutableOnlyWhileQuotaIsReserved() {
    String changedTemplate = ObjectRulesTest.WL.replace("image: busybox", "image: other");
    Workload pending = TestObjects.parse(ObjectRulesTest.WL, Workload.class);
    Workload reserved = TestObjects.parse(ObjectRulesTest.WL + RESERVED, Workload.class);
    Workload edited = TestObjects.parse(changedTemplate + RESERVED, Workload.class);
    assertThat(BerthValidators.workloadUpdate(pending, edited)).isEmpty();
    assertThat(BerthValidators.workloadUpdate(reserved, edited))
        .extracting(FieldError::path)
        .containsExactly("spec.podSets[0].template");
    Workload requeued =
        TestObjects.parse(
            ObjectRulesTest.WL
                    .replace("queueName: q", "queueName: r")
                    .replace("count: 4", "count: 3")
                + RESERVED,
            Workload.class);
    assertThat(BerthValidators.workloadUpdate(reserved, requeued))
        .extracting(FieldError::path)
        .containsExactly("spec.queueName", "spec.podSets[0].count");
  }

  @Test
  void admissionIsNotEditedInPlace() {
    String admitted =
        RESERVED
            + """
          admission:
            clusterQueue: cq
            podSetAssignments:
            - {name: main, count: 4, flavors: {cpu: h100}}
        """;
    Workload old = TestObjects.parse(ObjectRulesTest.WL + admitted, Workload.class);
    Workload moved =
        TestObjects.parse(ObjectRulesTest.WL + admitted.replace("cq", "other"), Workload.class);
    assertThat(BerthValidators.workloadStatusUpdate(old, moved))
        .extracting(FieldError::path)
        .containsExactly("status.admission");
    Workload tooFew =
        TestObjects.parse(
            ObjectRulesTest.WL + admitted.replace("count: 4", "count: 1"), Workload.class);
    Workload pending = TestObjects.parse(ObjectRulesTest.WL, Workload.class);
    assertThat(BerthValidators.workloadStatusUpdate(pending, tooFew))
        .extracting(FieldError::path)
        .containsExactly("status.admission.podSetAssignments[0].count");
  }

  @Test
  void queueLabelIsFixedWhileTheJobRuns() {
    String running =
        ObjectRulesTest.JOB.replace("parallelism: 4", "parallelism: 4\n  suspend: false");
    Job old = TestObjects.parse(running, Job.class);
    Job moved =
        TestObjects.parse(running.replace("queue-name: team-a", "queue-name: team-b"), Job.class);
    Job removed =
        TestObjects.parse(
            running.replace("labels: {berth.dev/queue-name: team-a}", "labels: {}"), Job.class);
    assertThat(BerthValidators.jobUpdate(old, moved))
        .extracting(FieldError::path)
        .containsExactly("metadata.labels[berth.dev/queue-name]");
    assertThat(BerthValidators.jobUpdate(old, removed))
        .extracting(FieldError::message)
        .singleElement()
        .asString()
        .contains("removed");

    Job suspended =
        TestObjects.parse(running.replace("suspend: false", "suspend: true"), Job.class);
    assertThat(BerthValidators.jobUpdate(suspended, moved)).isEmpty();
  }

  @Test
  void jobSetQueueLabelIsFixedWhileItRuns() {
    var old = TestObjects.json(ObjectRulesTest.JOBSET);
    var moved = TestObjects.json(ObjectRulesTest.JOBSET.replace("team-a", "team-b"));
    assertThat(BerthValidators.jobSetUpdate(old, moved))
        .extracting(FieldError::path)
        .containsExactly("metadata.labels[berth.dev/queue-name]");
  }
}
