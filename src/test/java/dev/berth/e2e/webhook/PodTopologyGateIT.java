package dev.berth.e2e.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.api.v1beta1.Berth;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Pods of a topology-aware podSet are stored gated, and the operator's release (domain node labels
 * added to nodeSelector, gate removed, in one patch) is accepted by this API server version. The
 * user client creates pods as the Job controller would; the admin client is the operator.
 */
class PodTopologyGateIT {
  static final String NS = "webhook-pods";
  private static final String OTHER_GATE = "example.com/quota-check";
  private static final String FLAVOR_LABEL = "cloud.example.com/gpu";
  private static final String RACK = "topology.example.com/rack";
  private static final String BLOCK = "topology.example.com/block";
  private static KubernetesClient operator;
  private static KubernetesClient jobController;

  @BeforeAll
  static void setUp() {
    WebhookTestCluster cluster = WebhookTestCluster.get();
    cluster.ensureNamespace(NS);
    operator = cluster.admin();
    jobController = cluster.user();
  }

  /** A pod as the Job controller creates it from a template the operator labelled and placed. */
  private static Pod createPod(String ns, String name, String labels, String extraSpec) {
    return jobController
        .resource(
            Serialization.unmarshal(
                """
        apiVersion: v1
        kind: Pod
        metadata: {name: %s, namespace: %s, labels: {%s}}
        spec:
          restartPolicy: Never
          nodeSelector: {%s: h100}
          containers: [{name: main, image: busybox}]
        %s"""
                    .formatted(name, ns, labels, FLAVOR_LABEL, extraSpec),
                Pod.class))
        .create();
  }

  private static String podSetLabels(String workload) {
    return Berth.PODSET_LABEL + ": main, " + Berth.WORKLOAD_LABEL + ": " + workload;
  }

  private static Pod stored(String ns, String name) {
    return operator.pods().inNamespace(ns).withName(name).get();
  }

  private static List<String> gates(Pod pod) {
    List<PodSchedulingGate> gates = pod.getSpec().getSchedulingGates();
    return gates == null ? List.of() : gates.stream().map(PodSchedulingGate::getName).toList();
  }

  @Test
  void podOfATopologyAwarePodSetIsStoredGated() {
    createPod(NS, "gated", podSetLabels("job-train-1"), "");
    assertThat(gates(stored(NS, "gated"))).containsExactly(Berth.TOPOLOGY_SCHEDULING_GATE);
  }

  @Test
  void anotherControllersGateIsKeptAndBerthsAppended() {
    createPod(
        NS,
        "two-gates",
        podSetLabels("job-train-2"),
        "  schedulingGates: [{name: " + OTHER_GATE + "}]\n");
    assertThat(gates(stored(NS, "two-gates")))
        .containsExactly(OTHER_GATE, Berth.TOPOLOGY_SCHEDULING_GATE);
  }

  @Test
  void podWithoutThePodSetLabelIsNotGated() {
    createPod(NS, "plain", "app: web, " + Berth.WORKLOAD_LABEL + ": job-train-3", "");
    assertThat(gates(stored(NS, "plain"))).isEmpty();
  }

  @Test
  void podInAnExcludedNamespaceIsNotGated() {
    createPod("kube-system", "berth-excluded", podSetLabels("job-train-4"), "");
    try {
      assertThat(gates(stored("kube-system", "berth-excluded"))).isEmpty();
    } finally {
      operator.pods().inNamespace("kube-system").withName("berth-excluded").delete();
    }
  }

  @Test
  void operatorReleasesTheGateWithTheDomainsNodeLabelsInOnePatch() {
    createPod(
        NS,
        "release",
        podSetLabels("job-train-5"),
        "  schedulingGates: [{name: " + OTHER_GATE + "}]\n");
    // The gate's index is checked in the same patch: if another controller removed its gate in
    // between, the test op fails instead of the remove taking the wrong gate.
    String release =
        """
        [
          {"op": "test", "path": "/spec/schedulingGates/1/name", "value": "%s"},
          {"op": "remove", "path": "/spec/schedulingGates/1"},
          {"op": "add", "path": "/spec/nodeSelector/%s", "value": "b1"},
          {"op": "add", "path": "/spec/nodeSelector/%s", "value": "r3"}
        ]"""
            .formatted(Berth.TOPOLOGY_SCHEDULING_GATE, pointer(BLOCK), pointer(RACK));

    operator
        .pods()
        .inNamespace(NS)
        .withName("release")
        .patch(PatchContext.of(PatchType.JSON), release);

    Pod pod = stored(NS, "release");
    assertThat(gates(pod)).containsExactly(OTHER_GATE);
    assertThat(pod.getSpec().getNodeSelector())
        .containsEntry(FLAVOR_LABEL, "h100")
        .containsEntry(BLOCK, "b1")
        .containsEntry(RACK, "r3")
        .hasSize(3);
  }

  @Test
  void aGatedPodsNodeSelectorCanOnlyGrow() {
    createPod(NS, "narrow-only", podSetLabels("job-train-6"), "");
    // The flavor's node labels were put there at admission; the domain may only add to them.
    String overwrite =
        """
        [
          {"op": "replace", "path": "/spec/nodeSelector/%s", "value": "a100"},
          {"op": "remove", "path": "/spec/schedulingGates/0"}
        ]"""
            .formatted(pointer(FLAVOR_LABEL));
    assertThatThrownBy(
            () ->
                operator
                    .pods()
                    .inNamespace(NS)
                    .withName("narrow-only")
                    .patch(PatchContext.of(PatchType.JSON), overwrite))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("only additions to spec.nodeSelector are allowed");
    Pod pod = stored(NS, "narrow-only");
    assertThat(gates(pod)).containsExactly(Berth.TOPOLOGY_SCHEDULING_GATE);
    assertThat(pod.getSpec().getNodeSelector()).containsExactly(Map.entry(FLAVOR_LABEL, "h100"));
  }

  @Test
  void labelledPodBoundByNodeNameIsRefused() {
    // A pod that names its node skips the scheduler, and with it its topology domain. The API
    // server refuses a gated pod with a nodeName, so such a pod never runs outside its domain.
    assertThatThrownBy(
            () -> createPod(NS, "bound", podSetLabels("job-train-7"), "  nodeName: node-1\n"))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("spec.nodeName")
        .hasMessageContaining("cannot be set until all schedulingGates have been cleared");
    assertThat(stored(NS, "bound")).isNull();
  }

  /** A label key as a JSON Pointer segment (RFC 6901: "~" and "/" escaped). */
  private static String pointer(String key) {
    return key.replace("~", "~0").replace("/", "~1");
  }
}
