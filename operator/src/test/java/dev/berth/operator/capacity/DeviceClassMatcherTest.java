package dev.berth.operator.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.operator.capacity.DeviceClassMatcher.PublishedDevice;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** DeviceClass selectors of the form DRA drivers write, read without a CEL interpreter. */
class DeviceClassMatcherTest {
  private static final PublishedDevice GPU =
      new PublishedDevice(
          "gpu.nvidia.com",
          Map.of("gpu.nvidia.com/type", "gpu", "gpu.nvidia.com/index", 0L, "x.io/fast", true));
  private static final PublishedDevice MIG =
      new PublishedDevice("gpu.nvidia.com", Map.of("gpu.nvidia.com/type", "mig"));
  private static final PublishedDevice OTHER = new PublishedDevice("gpu.example.com", Map.of());

  static DeviceClass deviceClass(String name, String... expressions) {
    DeviceClassBuilder b = new DeviceClassBuilder().withNewMetadata().withName(name).endMetadata();
    var spec = b.withNewSpec();
    for (String e : expressions) {
      spec.addNewSelector().withNewCel().withExpression(e).endCel().endSelector();
    }
    return spec.endSpec().build();
  }

  private static DeviceClassMatcher matcher(String... expressions) {
    return DeviceClassMatcher.of(deviceClass("c", expressions)).orElseThrow();
  }

  @Test
  void aDriverSelectorSelectsItsDriversDevices() {
    DeviceClassMatcher m = matcher("device.driver == 'gpu.nvidia.com'");
    assertThat(m.selects(GPU)).isTrue();
    assertThat(m.selects(MIG)).isTrue();
    assertThat(m.selects(OTHER)).isFalse();
  }

  @Test
  void attributeEqualitiesJoinedByAndNarrowIt() {
    DeviceClassMatcher gpus =
        matcher(
            "device.driver == \"gpu.nvidia.com\" && device.attributes[\"gpu.nvidia.com\"].type =="
                + " \"gpu\"");
    assertThat(gpus.selects(GPU)).isTrue();
    assertThat(gpus.selects(MIG)).isFalse();
    assertThat(matcher("(device.attributes['x.io'].fast == true)").selects(GPU)).isTrue();
    assertThat(matcher("device.attributes['gpu.nvidia.com'].index == 0").selects(GPU)).isTrue();
    assertThat(matcher("device.attributes['gpu.nvidia.com'].index == 1").selects(GPU)).isFalse();
    // Every selector must hold.
    assertThat(
            matcher("device.driver == 'gpu.nvidia.com'", "device.attributes['x.io'].fast == true")
                .selects(MIG))
        .isFalse();
  }

  @Test
  void aClassWithoutSelectorsSelectsEveryDevice() {
    assertThat(matcher().selects(OTHER)).isTrue();
  }

  @Test
  void anyOtherFormIsNotReadRatherThanGuessed() {
    assertThat(DeviceClassMatcher.of(deviceClass("c", "device.driver == 'a' || true"))).isEmpty();
    assertThat(
            DeviceClassMatcher.of(
                deviceClass(
                    "c",
                    "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('80Gi')) >= 0")))
        .isEmpty();
    assertThat(DeviceClassMatcher.of(deviceClass("c", "(device.driver == 'a'"))).isEmpty();
  }
}
