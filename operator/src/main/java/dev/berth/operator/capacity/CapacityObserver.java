package dev.berth.operator.capacity;

import dev.berth.engine.capacity.CapacityInventory;
import dev.berth.operator.admission.ClusterObserver;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;

/**
 * Node capacity and running pods' requests, as capacity accounting sees them (docs/capacity.md),
 * kept from the loop's observations for the {@link CapacityPublisher}. Loop thread only.
 */
public final class CapacityObserver implements ClusterObserver {
  private final CapacityInventory inventory = new CapacityInventory();

  @Override
  public void node(Node node) {
    inventory.upsertNode(CapacityTranslator.node(node));
  }

  @Override
  public void nodeDeleted(String name) {
    inventory.deleteNode(name);
  }

  /** A pod takes node capacity while bound and running. */
  @Override
  public void pod(Pod pod) {
    Map<String, Long> inUse = CapacityTranslator.runningRequests(pod);
    if (inUse == null) {
      inventory.deletePod(pod.getMetadata().getUid());
    } else {
      inventory.upsertPod(pod.getMetadata().getUid(), pod.getSpec().getNodeName(), inUse);
    }
  }

  @Override
  public void podDeleted(String uid) {
    inventory.deletePod(uid);
  }

  CapacityInventory inventory() {
    return inventory;
  }
}
