package dev.berth.operator.capacity;

import dev.berth.api.v1beta1.FlavorDeviceSelector;
import dev.berth.engine.capacity.CapacityInventory;
import dev.berth.operator.admission.ClusterObserver;
import dev.berth.webhook.dra.DeviceClassMappings;
import dev.berth.webhook.dra.FlavorDeviceSelectors;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Node capacity, running pods' requests and the DRA devices published for each node, as capacity
 * accounting sees them (docs/capacity.md, docs/dra.md), kept from the loop's observations for the
 * {@link CapacityPublisher}. Loop thread only.
 */
public final class CapacityObserver implements ClusterObserver {
  private final CapacityInventory inventory = new CapacityInventory();
  private final PublishedDevices devices;

  /** The flavors with device selectors: their selectors, and the key they were compiled from. */
  private final Map<String, View> views = new HashMap<>();

  private Set<String> nodesWithDevices = Set.of();

  private record View(String key, FlavorDeviceSelectors selectors) {}

  public CapacityObserver() {
    this(DeviceClassMappings.NONE);
  }

  /** {@code mappings}: which quota resource a DeviceClass's published devices count as. */
  public CapacityObserver(DeviceClassMappings mappings) {
    this.devices = new PublishedDevices(mappings);
  }

  /** A ResourceSlice as stored now. */
  public void slice(ResourceSlice slice) {
    devices.slice(slice);
    recount();
  }

  public void sliceDeleted(String name) {
    devices.sliceDeleted(name);
    recount();
  }

  /** A DeviceClass as stored now. */
  public void deviceClass(DeviceClass deviceClass) {
    devices.deviceClass(deviceClass);
    recount();
  }

  public void deviceClassDeleted(String name) {
    devices.deviceClassDeleted(name);
    recount();
  }

  /**
   * The device selectors of the flavors that have them (flavor name to {@code
   * spec.deviceSelectors}), as stored now: each such flavor's devices are counted in a view of its
   * own ({@link CapacityTranslator#flavor}), recounted when its selectors change.
   */
  public void deviceSelectors(Map<String, List<FlavorDeviceSelector>> byFlavor) {
    for (String gone : List.copyOf(views.keySet())) {
      if (!byFlavor.containsKey(gone)) {
        views.remove(gone);
        inventory.dropDeviceView(gone);
      }
    }
    byFlavor.forEach(
        (flavor, selectors) -> {
          String key = FlavorDeviceSelectors.key(selectors);
          View held = views.get(flavor);
          if (held == null || !held.key().equals(key)) {
            View view = new View(key, FlavorDeviceSelectors.of(selectors));
            views.put(flavor, view);
            count(flavor, view.selectors());
          }
        });
  }

  /** Slices and classes change seldom, and a cluster has a few hundred: counted afresh. */
  private void recount() {
    Map<String, Map<String, Long>> byNode = devices.byNode();
    for (String node : nodesWithDevices) {
      if (!byNode.containsKey(node)) {
        inventory.devices(node, Map.of());
      }
    }
    byNode.forEach(inventory::devices);
    nodesWithDevices = Set.copyOf(byNode.keySet());
    views.forEach((flavor, view) -> count(flavor, view.selectors()));
  }

  /** A flavor's view, afresh. */
  private void count(String flavor, FlavorDeviceSelectors selectors) {
    inventory.dropDeviceView(flavor);
    devices.byNode(selectors).forEach((node, counts) -> inventory.devices(node, flavor, counts));
  }

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
