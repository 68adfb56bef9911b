package dev.berth.local;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimSpec;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimSpecBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A stand-in for a DRA driver, not one: a real driver's node side is a kubelet plugin that prepares
 * devices for the pods the kubelet starts, and KWOK, which plays the kubelet here, runs none. What
 * the control plane sees of a driver is what this does: one ResourceSlice per node, a pool of its
 * own, of {@code devices} GPUs of driver {@value #DRIVER} (with a {@code memory} capacity when
 * asked), published and withdrawn (as a driver does when its node's devices go), and the
 * DeviceClass that selects them. kube-scheduler allocates claims from those slices as from a real
 * driver's. Local mode runs it on its dra pool ({@link SimulatedNodes#dra()}), the end-to-end suite
 * on the nodes of its DRA tests.
 */
public final class DraDriverStandIn {
  public static final String DRIVER = "gpu.example.com";

  private final KubernetesClient client;

  /** The memory of each node's devices, once published with one: republished with it. */
  private final Map<String, String> memory = new ConcurrentHashMap<>();

  public DraDriverStandIn(KubernetesClient client) {
    this.client = client;
  }

  /** The DeviceClass {@value #DRIVER}, selecting the driver's devices as drivers write it. */
  public static DeviceClass deviceClass() {
    return new DeviceClassBuilder()
        .withNewMetadata()
        .withName(DRIVER)
        .endMetadata()
        .withNewSpec()
        .addNewSelector()
        .withNewCel()
        .withExpression("device.driver == \"" + DRIVER + "\"")
        .endCel()
        .endSelector()
        .endSpec()
        .build();
  }

  /** What a claim asking for {@code count} devices of {@code deviceClass} says. */
  public static ResourceClaimSpec claimSpec(String deviceClass, int count) {
    return new ResourceClaimSpecBuilder()
        .withNewDevices()
        .addNewRequest()
        .withName("devices")
        .withNewExactly()
        .withDeviceClassName(deviceClass)
        .withCount((long) count)
        .endExactly()
        .endRequest()
        .endDevices()
        .build();
  }

  /**
   * Publishes {@code node}'s slice of {@code devices} GPUs (gpu-0, gpu-1, ...), with the memory
   * they were last published with, if any.
   */
  public void publish(String node, int devices) {
    client.resource(slice(node, devices, memory.get(node))).serverSideApply();
  }

  /**
   * Publishes {@code node}'s slice of {@code devices} GPUs of {@code memory} each (capacity {@code
   * memory} in the driver's domain, as NVIDIA's driver publishes a GPU's).
   */
  public void publish(String node, int devices, String memory) {
    this.memory.put(node, memory);
    publish(node, devices);
  }

  /** Withdraws {@code node}'s slice. */
  public void withdraw(String node) {
    client.resources(ResourceSlice.class).withName(sliceName(node)).delete();
  }

  /** The slice a driver would publish for {@code node}. */
  public static ResourceSlice slice(String node, int devices) {
    return slice(node, devices, null);
  }

  /** As {@link #slice(String, int)}, each device of {@code memory} (none when null). */
  public static ResourceSlice slice(String node, int devices, String memory) {
    var spec =
        new ResourceSliceBuilder()
            .withNewMetadata()
            .withName(sliceName(node))
            .endMetadata()
            .withNewSpec()
            .withDriver(DRIVER)
            .withNodeName(node)
            .withNewPool()
            .withName(node)
            .withGeneration(1L)
            .withResourceSliceCount(1L)
            .endPool();
    for (int i = 0; i < devices; i++) {
      var device = spec.addNewDevice().withName("gpu-" + i);
      if (memory != null) {
        device.addToCapacity(
            "memory", new DeviceCapacityBuilder().withValue(new Quantity(memory)).build());
      }
      device.endDevice();
    }
    return spec.endSpec().build();
  }

  private static String sliceName(String node) {
    return node + "-" + DRIVER;
  }
}
