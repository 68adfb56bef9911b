package dev.berth.operator.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.capacity.CapacityNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Node capacity fed as the loop feeds it, alone: nodes and pods in, the inventory capacity
 * accounting reads out. Only a pod bound to a node and still running takes its requests there.
 */
class CapacityObserverTest {
  private final CapacityObserver capacity = new CapacityObserver();

  @Test
  void aNodeIsKeptUntilDeleted() {
    capacity.node(node("n1", "16"));
    assertThat(capacity.inventory().nodes())
        .extracting(CapacityNode::name, CapacityNode::ready)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("n1", true));

    capacity.nodeDeleted("n1");
    assertThat(capacity.inventory().nodes()).isEmpty();
  }

  @Test
  void aBoundRunningPodTakesItsRequestsUntilItEndsOrGoes() {
    capacity.node(node("n1", "16"));
    capacity.pod(pod("p1", null, null));
    assertThat(capacity.inventory().inUse("n1")).as("not bound yet").isEmpty();

    capacity.pod(pod("p1", "n1", "Running"));
    assertThat(capacity.inventory().inUse("n1")).containsEntry("cpu", 2_000L);
    capacity.pod(pod("p2", "n1", "Pending"));
    assertThat(capacity.inventory().inUse("n1")).containsEntry("cpu", 4_000L);

    capacity.pod(pod("p1", "n1", "Succeeded"));
    assertThat(capacity.inventory().inUse("n1")).as("p1 ended").containsEntry("cpu", 2_000L);
    capacity.podDeleted("p2");
    assertThat(capacity.inventory().inUse("n1")).isEmpty();
  }

  private static Node node(String name, String cpu) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .endSpec()
        .withNewStatus()
        .addToAllocatable("cpu", new Quantity(cpu))
        .addToCapacity("cpu", new Quantity(cpu))
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .endCondition()
        .endStatus()
        .build();
  }

  private static Pod pod(String uid, String nodeName, String phase) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(uid)
        .withNamespace("team")
        .withUid(uid)
        .endMetadata()
        .withNewSpec()
        .withNodeName(nodeName)
        .addNewContainer()
        .withName("main")
        .withNewResources()
        .withRequests(Map.of("cpu", new Quantity("2")))
        .endResources()
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase(phase)
        .endStatus()
        .build();
  }
}
