package dev.berth.operator.capacity;

import static dev.berth.operator.capacity.DeviceClassSelectorsTest.deviceClass;
import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.FlavorDeviceSelector;
import dev.berth.webhook.dra.DeviceClassMappings;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpecFluent;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * ResourceSlices counted per node and quota resource: a device counts for a resource when a class
 * mapped to it selects it; only a pool's newest generation and single-node slices count; a slice
 * withdrawn takes its devices with it, into the inventory capacity accounting reads.
 */
class PublishedDevicesTest {
  private static final DeviceClassMappings MAPPINGS =
      new DeviceClassMappings(
          Map.of("gpu.nvidia.com", "nvidia.com/gpu", "mig.nvidia.com", "nvidia.com/mig"));

  private final CapacityObserver capacity = new CapacityObserver(MAPPINGS);

  static ResourceSlice slice(String name, String node, long generation, String... types) {
    var spec =
        new ResourceSliceBuilder()
            .withNewMetadata()
            .withName(name)
            .endMetadata()
            .withNewSpec()
            .withDriver("gpu.nvidia.com")
            .withNodeName(node)
            .withNewPool()
            .withName(node == null ? "fabric" : node)
            .withGeneration(generation)
            .withResourceSliceCount(1L)
            .endPool();
    for (int i = 0; i < types.length; i++) {
      addDevice(spec, "d" + i, types[i]);
    }
    return spec.endSpec().build();
  }

  private static void addDevice(ResourceSliceSpecFluent<?> spec, String name, String type) {
    spec.addNewDevice()
        .withName(name)
        .addToAttributes("type", new DeviceAttributeBuilder().withString(type).build())
        .endDevice();
  }

  private void classes() {
    capacity.deviceClass(
        deviceClass(
            "gpu.nvidia.com",
            "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type =="
                + " 'gpu'"));
    capacity.deviceClass(
        deviceClass(
            "mig.nvidia.com",
            "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type =="
                + " 'mig'"));
    // Not mapped: its devices are nobody's quota resource.
    capacity.deviceClass(deviceClass("everything"));
  }

  @Test
  void eachNodeCountsTheDevicesItsSlicesPublishPerMappedResource() {
    classes();
    capacity.slice(slice("n1-gpus", "n1", 1, "gpu", "gpu", "mig", "mig", "mig"));
    capacity.slice(slice("n2-gpus", "n2", 1, "gpu", "gpu"));
    assertThat(capacity.inventory().devices("n1"))
        .isEqualTo(Map.of("nvidia.com/gpu", 2L, "nvidia.com/mig", 3L));
    assertThat(capacity.inventory().devices("n2")).isEqualTo(Map.of("nvidia.com/gpu", 2L));

    capacity.sliceDeleted("n2-gpus");
    assertThat(capacity.inventory().devices("n2")).as("withdrawn").isEmpty();
    assertThat(capacity.inventory().devices("n1")).containsEntry("nvidia.com/gpu", 2L);
  }

  @Test
  void aClassMappedLaterOrDeletedMovesTheCount() {
    capacity.slice(slice("n1-gpus", "n1", 1, "gpu", "mig"));
    assertThat(capacity.inventory().devices("n1")).as("no class yet").isEmpty();
    classes();
    assertThat(capacity.inventory().devices("n1")).containsEntry("nvidia.com/mig", 1L);
    capacity.deviceClassDeleted("mig.nvidia.com");
    assertThat(capacity.inventory().devices("n1")).isEqualTo(Map.of("nvidia.com/gpu", 1L));
  }

  @Test
  void onlyThePoolsNewestGenerationAndSingleNodeSlicesCount() {
    classes();
    capacity.slice(slice("n1-old", "n1", 1, "gpu", "gpu", "gpu", "gpu"));
    capacity.slice(slice("n1-new", "n1", 2, "gpu", "gpu"));
    capacity.slice(slice("fabric", null, 1, "gpu", "gpu"));
    assertThat(capacity.inventory().devices("n1")).isEqualTo(Map.of("nvidia.com/gpu", 2L));
  }

  @Test
  void aClassCountsByAnyCelExpressionAndByNoneThatDoesNotCompile() {
    capacity.slice(slice("n1-gpus", "n1", 1, "gpu", "mig", "vgpu"));
    capacity.deviceClass(
        deviceClass(
            "gpu.nvidia.com", "device.attributes['gpu.nvidia.com'].type in ['gpu', 'vgpu']"));
    assertThat(capacity.inventory().devices("n1")).isEqualTo(Map.of("nvidia.com/gpu", 2L));
    // A quantity has no >= in Kubernetes' environment either: counted for no resource, not guessed.
    capacity.deviceClass(
        deviceClass("gpu.nvidia.com", "device.attributes['gpu.nvidia.com'].type >= quantity('1')"));
    assertThat(capacity.inventory().devices("n1")).isEmpty();
  }

  /** A slice of {@code count} GPUs of {@code memory} each (capacity in the driver's domain). */
  private static ResourceSlice gpus(String node, int count, String memory) {
    String[] types = new String[count];
    java.util.Arrays.fill(types, "gpu");
    ResourceSlice slice = slice(node + "-gpus", node, 1, types);
    slice
        .getSpec()
        .getDevices()
        .forEach(
            d ->
                d.setCapacity(
                    Map.of(
                        "memory",
                        new DeviceCapacityBuilder().withValue(new Quantity(memory)).build())));
    return slice;
  }

  @Test
  void aFlavorWithDeviceSelectorsCountsOnlyTheDevicesTheySelect() {
    String atLeast80Gi =
        "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('80Gi')) >= 0";
    classes();
    capacity.slice(gpus("n1", 2, "80Gi"));
    capacity.slice(gpus("n2", 2, "40Gi"));
    capacity.deviceSelectors(Map.of("big", List.of(new FlavorDeviceSelector(null, atLeast80Gi))));
    assertThat(capacity.inventory().devices("n1", "big")).isEqualTo(Map.of("nvidia.com/gpu", 2L));
    assertThat(capacity.inventory().devices("n2", "big")).as("40Gi").isEmpty();
    assertThat(capacity.inventory().devices("n2"))
        .as("every device, for flavors without selectors")
        .isEqualTo(Map.of("nvidia.com/gpu", 2L));

    capacity.slice(gpus("n3", 1, "141Gi"));
    assertThat(capacity.inventory().devices("n3", "big"))
        .as("a slice published later")
        .isEqualTo(Map.of("nvidia.com/gpu", 1L));

    // Narrowing another class only: the GPUs all count again.
    capacity.deviceSelectors(
        Map.of("big", List.of(new FlavorDeviceSelector("mig.nvidia.com", "false"))));
    assertThat(capacity.inventory().devices("n2", "big")).isEqualTo(Map.of("nvidia.com/gpu", 2L));

    capacity.deviceSelectors(Map.of());
    assertThat(capacity.inventory().devices("n1", "big")).as("no such flavor any more").isEmpty();
  }
}
