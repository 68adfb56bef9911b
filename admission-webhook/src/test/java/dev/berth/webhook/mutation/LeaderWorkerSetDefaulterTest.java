package dev.berth.webhook.mutation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.berth.api.v1beta1.Berth;
import dev.berth.webhook.validation.LeaderWorkerSetPods;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * A LeaderWorkerSet's queue reaches both its pod templates, a required topology covers the whole
 * replica group, and each of its pods joins its group's pod group with its role.
 */
class LeaderWorkerSetDefaulterTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final LeaderWorkerSetDefaulter DEFAULTER =
      new LeaderWorkerSetDefaulter(PodAdmissionGateTest.SCOPE);

  private static ObjectNode lws(String labels, String workerAnnotations, String gpu)
      throws Exception {
    return (ObjectNode)
        YAML.readTree(
            """
            metadata: {name: serve, labels: {%s}}
            spec:
              leaderWorkerTemplate:
                size: 3
                leaderTemplate:
                  spec: {containers: [{name: c, resources: %s}]}
                workerTemplate:
                  metadata: {annotations: {%s}}
                  spec: {containers: [{name: c, resources: %s}]}
            """
                .formatted(labels, gpu, workerAnnotations, gpu));
  }

  private static JsonNode template(JsonNode lws, String which) {
    return lws.at("/spec/leaderWorkerTemplate/" + which + "/metadata");
  }

  @Test
  void theQueueAndPriorityReachBothTemplates() throws Exception {
    ObjectNode lws = lws("berth.dev/queue-name: llm, berth.dev/priority-class: serving", "", "{}");
    DEFAULTER.apply(lws, "plain");
    for (String which : new String[] {"leaderTemplate", "workerTemplate"}) {
      assertThat(template(lws, which).path("labels").path(Berth.QUEUE_NAME_LABEL).asText())
          .isEqualTo("llm");
      assertThat(template(lws, which).path("labels").path(Berth.PRIORITY_CLASS_LABEL).asText())
          .isEqualTo("serving");
    }
  }

  @Test
  void anUnlabelledGpuLwsGetsTheDefaultQueueWhereThereIsOne() throws Exception {
    String gpu = "{limits: {nvidia.com/gpu: 1}}";
    ObjectNode team = lws("", "", gpu);
    DEFAULTER.apply(team, "team");
    assertThat(team.at("/metadata/labels").path(Berth.QUEUE_NAME_LABEL).asText())
        .isEqualTo("default");
    assertThat(
            template(team, "workerTemplate").path("labels").path(Berth.QUEUE_NAME_LABEL).asText())
        .isEqualTo("default");
    ObjectNode plain = lws("", "", gpu);
    DEFAULTER.apply(plain, "plain");
    assertThat(plain.at("/metadata/labels").has(Berth.QUEUE_NAME_LABEL)).isFalse();
  }

  @Test
  void aRequiredTopologyOnOneTemplatePlacesTheWholeGroupInOneDomain() throws Exception {
    ObjectNode lws =
        lws(
            "berth.dev/queue-name: llm",
            "berth.dev/podset-required-topology: topology.berth.dev/rack",
            "{}");
    DEFAULTER.apply(lws, "plain");
    for (String which : new String[] {"leaderTemplate", "workerTemplate"}) {
      JsonNode annotations = template(lws, which).path("annotations");
      assertThat(annotations.path(Berth.PODSET_REQUIRED_TOPOLOGY).asText())
          .isEqualTo("topology.berth.dev/rack");
      assertThat(annotations.path(Berth.PODSET_GROUP_NAME).asText())
          .isEqualTo(LeaderWorkerSetDefaulter.REPLICA_PODSET_GROUP);
    }
    ObjectNode own =
        lws(
            "berth.dev/queue-name: llm",
            "berth.dev/podset-required-topology: topology.berth.dev/rack,"
                + " berth.dev/podset-group-name: mine",
            "{}");
    DEFAULTER.apply(own, "plain");
    assertThat(template(own, "leaderTemplate").path("annotations").isMissingNode()).isTrue();
  }

  private static final PodAdmissionGate GATE =
      new PodAdmissionGate(
          PodAdmissionGateTest.SCOPE,
          Clock.fixed(Instant.parse("2026-01-02T03:04:05.678Z"), ZoneOffset.UTC));

  private static ObjectNode pod(String name, String labels, String annotations) throws Exception {
    return (ObjectNode)
        YAML.readTree(
            """
            metadata:
              name: %s
              labels: {berth.dev/queue-name: llm, leaderworkerset.sigs.k8s.io/name: serve, %s}
              annotations: {leaderworkerset.sigs.k8s.io/size: "3", %s}
              ownerReferences:
              - {apiVersion: apps/v1, kind: StatefulSet, name: x, uid: u, controller: true}
            spec: {containers: [{name: c}]}
            """
                .formatted(name, labels, annotations));
  }

  @Test
  void eachPodOfAReplicaGroupJoinsItsPodGroupWithItsRole() throws Exception {
    // The leader, before or after LWS's own pod webhook gave it its group index.
    for (ObjectNode leader :
        new ObjectNode[] {
          pod("serve-1", "leaderworkerset.sigs.k8s.io/worker-index: '0'", ""),
          pod("serve-1", "leaderworkerset.sigs.k8s.io/group-index: '1'", "")
        }) {
      GATE.apply(leader, "plain");
      assertThat(leader.at("/metadata/labels").path(Berth.POD_GROUP_NAME_LABEL).asText())
          .isEqualTo("leaderworkerset-serve-1");
      assertThat(
              leader
                  .at("/metadata/annotations")
                  .path(Berth.POD_GROUP_TOTAL_COUNT_ANNOTATION)
                  .asText())
          .isEqualTo("3");
      assertThat(leader.at("/metadata/annotations").path(Berth.POD_GROUP_ROLE_ANNOTATION).asText())
          .isEqualTo("leader");
    }
    ObjectNode worker =
        pod(
            "serve-1-2",
            "leaderworkerset.sigs.k8s.io/group-index: '1'",
            "leaderworkerset.sigs.k8s.io/leader-name: serve-1");
    GATE.apply(worker, "plain");
    assertThat(worker.at("/metadata/labels").path(Berth.POD_GROUP_NAME_LABEL).asText())
        .isEqualTo("leaderworkerset-serve-1");
    assertThat(worker.at("/metadata/annotations").path(Berth.POD_GROUP_ROLE_ANNOTATION).asText())
        .isEqualTo("worker");
    assertThat(worker.at("/spec/schedulingGates/0/name").asText())
        .isEqualTo(Berth.ADMISSION_SCHEDULING_GATE);
  }

  @Test
  void aLongLwsNameStillMakesAGroupNameThatIsALabelValue() {
    String name = "a".repeat(60);
    String group = LeaderWorkerSetPods.groupName(name, "12");
    assertThat(group)
        .hasSizeLessThanOrEqualTo(63)
        .startsWith("leaderworkerset-aaa")
        .endsWith("-12");
    assertThat(LeaderWorkerSetPods.groupName(name + "b", "12")).isNotEqualTo(group);
  }
}
