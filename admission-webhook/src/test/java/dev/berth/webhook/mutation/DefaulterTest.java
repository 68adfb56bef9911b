package dev.berth.webhook.mutation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DefaulterTest {
  private static ObjectNode json(String yaml) {
    return Serialization.jsonMapper().valueToTree(Serialization.unmarshal(yaml, Map.class));
  }

  private static final String JOB =
      """
      apiVersion: batch/v1
      kind: Job
      metadata: {name: j, namespace: team, labels: {berth.dev/queue-name: q}}
      spec: {template: {spec: {containers: [{name: c, image: b}]}}}
      """;

  @Test
  void managedJobIsSuspended() {
    ObjectNode job = json(JOB);
    new ManagedJobDefaulter(LocalQueueLookup.NONE).apply(job, "team");
    assertThat(job.at("/spec/suspend").asBoolean()).isTrue();
  }

  @Test
  void theSubmissionTimeIsStampedOverAnyHandSetValue() {
    java.time.Clock clock =
        java.time.Clock.fixed(
            java.time.Instant.parse("2026-12-01T12:00:00.123456Z"), java.time.ZoneOffset.UTC);
    ObjectNode job =
        json(
            JOB.replace(
                "labels:",
                "annotations: {berth.dev/submitted-at: '2000-01-01T00:00:00Z'}, labels:"));
    new ManagedJobDefaulter(LocalQueueLookup.NONE, clock).apply(job, "team");
    assertThat(job.at("/metadata/annotations/berth.dev~1submitted-at").asText())
        .isEqualTo("2026-12-01T12:00:00.123456Z");
  }

  @Test
  void missingQueueComesFromTheDefaultLocalQueue() {
    String unlabelled = JOB.replace("labels: {berth.dev/queue-name: q}", "labels: {app: x}");
    ObjectNode job = json(unlabelled);
    new ManagedJobDefaulter((ns, name) -> ns.equals("team") && name.equals("default"))
        .apply(job, "team");
    assertThat(job.at("/metadata/labels/berth.dev~1queue-name").asText()).isEqualTo("default");
    assertThat(job.at("/metadata/labels/app").asText()).isEqualTo("x");
    assertThat(job.at("/spec/suspend").asBoolean()).isTrue();

    ObjectNode elsewhere = json(unlabelled);
    new ManagedJobDefaulter((ns, name) -> false).apply(elsewhere, "team");
    assertThat(elsewhere).isEqualTo(json(unlabelled));
  }

  @Test
  void jobSetChildrenAreLeftToTheirJobSet() {
    String child =
        JOB.replace(
            "labels:",
            "ownerReferences: [{apiVersion: jobset.x-k8s.io/v1alpha2,"
                + " kind: JobSet, name: js, uid: u, controller: true}], labels:");
    ObjectNode job = json(child);
    new ManagedJobDefaulter((ns, name) -> true).apply(job, "team");
    assertThat(job).isEqualTo(json(child));
  }

  @Test
  void clusterQueueDefaultsFillOnlyWhatIsMissing() {
    ObjectNode cq =
        json(
            """
        apiVersion: berth.dev/v1beta1
        kind: ClusterQueue
        metadata: {name: cq}
        spec:
          queueingStrategy: StrictFIFO
          preemption: {borrowWithinCohort: {maxPriorityThreshold: 5}}
        """);
    new ClusterQueueDefaulter().apply(cq, null);
    JsonNode spec = cq.get("spec");
    assertThat(spec.get("queueingStrategy").asText()).isEqualTo("StrictFIFO");
    assertThat(spec.get("stopPolicy").asText()).isEqualTo("None");
    assertThat(spec.at("/flavorFungibility/whenCanBorrow").asText()).isEqualTo("MayStopSearch");
    assertThat(spec.at("/flavorFungibility/whenCanPreempt").asText()).isEqualTo("TryNextFlavor");
    assertThat(spec.at("/preemption/withinClusterQueue").asText()).isEqualTo("Never");
    assertThat(spec.at("/preemption/reclaimWithinCohort").asText()).isEqualTo("Never");
    assertThat(spec.at("/preemption/borrowWithinCohort/policy").asText()).isEqualTo("Never");
  }

  @Test
  void workloadDefaults() {
    ObjectNode wl =
        json(
            """
        apiVersion: berth.dev/v1beta1
        kind: Workload
        metadata: {name: w, namespace: n}
        spec:
          podSets:
          - template: {spec: {containers: [{name: c, image: b}]}}
        """);
    new WorkloadDefaulter().apply(wl, "n");
    assertThat(wl.at("/spec/podSets/0/count").asInt()).isEqualTo(1);
    assertThat(wl.at("/spec/podSets/0/name").asText()).isEqualTo("main");
    assertThat(wl.at("/spec/active").asBoolean()).isTrue();
  }

  @Test
  void localQueueDefaults() {
    ObjectNode lq =
        json(
            """
        apiVersion: berth.dev/v1beta1
        kind: LocalQueue
        metadata: {name: q, namespace: n}
        spec: {clusterQueue: cq}
        """);
    new LocalQueueDefaulter().apply(lq, "n");
    assertThat(lq.at("/spec/stopPolicy").asText()).isEqualTo("None");
  }
}
