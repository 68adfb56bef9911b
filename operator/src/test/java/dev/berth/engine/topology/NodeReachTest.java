package dev.berth.engine.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.Taint;
import dev.berth.engine.model.TaintEffect;
import dev.berth.engine.model.Toleration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeReachTest {
  private static final Taint GPU_TAINT =
      new Taint("nvidia.com/gpu", "present", TaintEffect.NoSchedule);
  private static final ResourceFlavor GPU_FLAVOR =
      new ResourceFlavor("h100", Map.of("gpu", "h100"), List.of(), List.of());

  private static TopologyNode node(String name, Map<String, String> labels, Taint... taints) {
    var b = TopologyNode.named(name);
    labels.forEach(b::label);
    for (Taint t : taints) {
      b.taint(t);
    }
    return b.build();
  }

  private static PodSet pods(Map<String, String> nodeSelector, Toleration... tolerations) {
    return new PodSet(
        "main", 2, null, Map.of("cpu", 1000L), nodeSelector, List.of(), List.of(tolerations));
  }

  @Test
  void cpuPodsOnAFlavorWhoseNodesAllCarryTheGpuTaintReachNoNode() {
    List<TopologyNode> nodes =
        List.of(
            node("gpu-1", Map.of("gpu", "h100"), GPU_TAINT),
            node("gpu-2", Map.of("gpu", "h100"), GPU_TAINT));
    assertThat(NodeReach.unreachable(pods(Map.of()), GPU_FLAVOR, nodes))
        .isEqualTo(
            "podSet main: none of the 2 node(s) of flavor h100 takes its pods (node gpu-1 has"
                + " taint nvidia.com/gpu=present:NoSchedule, which the pods do not tolerate)");
  }

  @Test
  void aTolerationOfThePodsOrOfTheFlavorReachesThem() {
    List<TopologyNode> nodes = List.of(node("gpu-1", Map.of("gpu", "h100"), GPU_TAINT));
    Toleration tolerate = Toleration.exists("nvidia.com/gpu", TaintEffect.NoSchedule);
    assertThat(NodeReach.unreachable(pods(Map.of(), tolerate), GPU_FLAVOR, nodes)).isNull();
    ResourceFlavor tolerant =
        new ResourceFlavor("h100", Map.of("gpu", "h100"), List.of(), List.of(tolerate));
    assertThat(NodeReach.unreachable(pods(Map.of()), tolerant, nodes)).isNull();
  }

  @Test
  void oneNodeThatTakesThePodsIsEnough() {
    List<TopologyNode> nodes =
        List.of(
            node("gpu-1", Map.of("gpu", "h100", "zone", "a"), GPU_TAINT),
            node("gpu-2", Map.of("gpu", "h100", "zone", "b")));
    assertThat(NodeReach.unreachable(pods(Map.of("zone", "b")), GPU_FLAVOR, nodes)).isNull();
    assertThat(NodeReach.unreachable(pods(Map.of("zone", "c")), GPU_FLAVOR, nodes))
        .contains("none of the 2 node(s)")
        .contains("node gpu-1 does not match the pods' nodeSelector");
  }

  @Test
  void aFlavorWhoseLabelsNoNodeCarriesIsNamed() {
    List<TopologyNode> nodes = List.of(node("cpu-1", Map.of("pool", "cpu")));
    assertThat(NodeReach.unreachable(pods(Map.of()), GPU_FLAVOR, nodes))
        .isEqualTo("podSet main: no node has the labels of flavor h100 {gpu=h100}");
  }

  @Test
  void theNodeLifecyclesOwnTaintsComeAndGoAndDoNotCount() {
    List<TopologyNode> nodes =
        List.of(
            node(
                "gpu-1",
                Map.of("gpu", "h100"),
                new Taint("node.kubernetes.io/not-ready", null, TaintEffect.NoSchedule)));
    assertThat(NodeReach.unreachable(pods(Map.of()), GPU_FLAVOR, nodes)).isNull();
  }
}
