package dev.berth.operator.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.webhook.dra.cel.CelQuantity;
import dev.berth.webhook.dra.cel.DraDevice;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A DeviceClass's selectors read as kube-scheduler reads them: any CEL expression Kubernetes
 * accepts in a class, all of them holding, a failure on a device selecting it not.
 */
class DeviceClassSelectorsTest {
  private static final DraDevice GPU =
      new DraDevice(
          "gpu.nvidia.com",
          Map.of("gpu.nvidia.com/type", "gpu", "gpu.nvidia.com/index", 0L, "x.io/fast", true),
          Map.of("gpu.nvidia.com/memory", CelQuantity.parse("80Gi").orElseThrow()));
  private static final DraDevice MIG =
      new DraDevice(
          "gpu.nvidia.com",
          Map.of("gpu.nvidia.com/type", "mig"),
          Map.of("gpu.nvidia.com/memory", CelQuantity.parse("10Gi").orElseThrow()));
  private static final DraDevice OTHER = new DraDevice("gpu.example.com", Map.of(), Map.of());

  static DeviceClass deviceClass(String name, String... expressions) {
    DeviceClassBuilder b = new DeviceClassBuilder().withNewMetadata().withName(name).endMetadata();
    var spec = b.withNewSpec();
    for (String e : expressions) {
      spec.addNewSelector().withNewCel().withExpression(e).endCel().endSelector();
    }
    return spec.endSpec().build();
  }

  private static DeviceClassSelectors of(String... expressions) {
    return DeviceClassSelectors.of(deviceClass("c", expressions));
  }

  @Test
  void theFormDriversWriteIsReadAsBefore() {
    DeviceClassSelectors gpus =
        of(
            "device.driver == \"gpu.nvidia.com\" && device.attributes[\"gpu.nvidia.com\"].type =="
                + " \"gpu\"");
    assertThat(gpus.selects(GPU)).isTrue();
    assertThat(gpus.selects(MIG)).isFalse();
    assertThat(gpus.selects(OTHER)).isFalse();
    assertThat(of("(device.attributes['x.io'].fast == true)").selects(GPU)).isTrue();
    assertThat(of("device.attributes['gpu.nvidia.com'].index == 1").selects(GPU)).isFalse();
    assertThat(of().selects(OTHER)).as("no selectors: every device").isTrue();
  }

  @Test
  void anyExpressionKubernetesAcceptsCountsTheDevicesItSelects() {
    // None of these was read before: disjunction, membership, negation, quantities.
    assertThat(of("device.driver == 'gpu.example.com' || device.driver == 'gpu.nvidia.com'"))
        .satisfies(s -> assertThat(s.selects(GPU) && s.selects(OTHER)).isTrue());
    DeviceClassSelectors types = of("device.attributes['gpu.nvidia.com'].type in ['gpu', 'vgpu']");
    assertThat(types.selects(GPU)).isTrue();
    assertThat(types.selects(MIG)).isFalse();
    assertThat(of("device.attributes['gpu.nvidia.com'].type != 'mig'").selects(MIG)).isFalse();
    DeviceClassSelectors big =
        of("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) > 0");
    assertThat(big.selects(GPU)).isTrue();
    assertThat(big.selects(MIG)).isFalse();
  }

  @Test
  void everySelectorMustHold() {
    DeviceClassSelectors both =
        of("device.driver == 'gpu.nvidia.com'", "device.attributes['x.io'].fast");
    assertThat(both.selects(GPU)).isTrue();
    assertThat(both.selects(MIG)).as("x.io/fast is GPU's alone").isFalse();
  }

  @Test
  void aDeviceTheExpressionFailsOnIsNotSelected() {
    // kube-scheduler's allocator stops with a CEL runtime error on such a device: never allocated.
    DeviceClassSelectors fast = of("device.attributes['x.io'].fast");
    assertThat(fast.selects(OTHER)).isFalse();
    assertThat(of("device.attributes['gpu.nvidia.com'].index == 0").selects(MIG)).isFalse();
    assertThat(
            of("!('index' in device.attributes['gpu.nvidia.com']) ||"
                    + " device.attributes['gpu.nvidia.com'].index == 0")
                .selects(MIG))
        .as("guarded")
        .isTrue();
  }

  @Test
  void anExpressionThatDoesNotCompileNamesItsSelector() {
    assertThatThrownBy(() -> of("device.driver == 'a'", "(device.driver == 'a'"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("spec.selectors[1].cel.expression: ");
    assertThatThrownBy(() -> of("device.attributes['gpu.nvidia.com'].memory >= quantity('80Gi')"))
        .as("a quantity has no >=, in Kubernetes either")
        .hasMessageContaining("spec.selectors[0].cel.expression");
  }
}
