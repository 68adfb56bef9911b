package dev.berth.webhook.dra.cel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * DRA's CEL environment as Kubernetes defines it for device selectors: the device's driver,
 * attributes and capacities by domain, quantities and versions compared by their functions (no
 * {@code >=} on a quantity), an expression that fails on a device not selecting it.
 */
class DeviceSelectorCelTest {
  private static final String NVIDIA = "gpu.nvidia.com";

  private static DraDevice gpu(String memory, String model, long cores, String driverVersion) {
    return new DraDevice(
        NVIDIA,
        Map.of(
            NVIDIA + "/productName",
            model,
            NVIDIA + "/cores",
            cores,
            NVIDIA + "/mig",
            false,
            NVIDIA + "/driverVersion",
            CelSemver.parse(driverVersion).orElseThrow()),
        Map.of(NVIDIA + "/memory", CelQuantity.parse(memory).orElseThrow()));
  }

  private static final DraDevice H100 = gpu("80Gi", "H100", 132, "550.54.15");
  private static final DraDevice H200 = gpu("141Gi", "H200", 132, "560.28.3");
  private static final DraDevice A100_40 = gpu("40Gi", "A100", 108, "535.1.0");

  private static boolean selects(String expression, DraDevice device) {
    return DeviceSelectorCel.compile(expression).selects(device);
  }

  @Test
  void memoryOfAtLeast80GiSelectsEveryModelThatHasIt() {
    String atLeast =
        "device.capacity[\"gpu.nvidia.com\"].memory.compareTo(quantity(\"80Gi\")) >= 0";
    assertThat(selects(atLeast, H100)).isTrue();
    assertThat(selects(atLeast, H200)).isTrue();
    assertThat(selects(atLeast, A100_40)).isFalse();
    String greater = "device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity('80Gi'))";
    assertThat(selects(greater, H100)).as("80Gi is not more than 80Gi").isFalse();
    assertThat(selects(greater, H200)).isTrue();
    assertThat(
            selects(
                "device.capacity['gpu.nvidia.com'].memory.isLessThan(quantity('81920Mi'))", H100))
        .as("80Gi is 81920Mi")
        .isFalse();
    assertThat(selects("device.capacity['gpu.nvidia.com'].memory == quantity('81920Mi')", H100))
        .as("equal amounts, written differently")
        .isTrue();
  }

  @Test
  void attributesAreReadByDomainAndName() {
    assertThat(selects("device.driver == 'gpu.nvidia.com'", H100)).isTrue();
    assertThat(selects("device.attributes['gpu.nvidia.com'].productName in ['H100', 'H200']", H200))
        .isTrue();
    assertThat(selects("device.attributes['gpu.nvidia.com'].cores > 120", A100_40)).isFalse();
    assertThat(selects("!device.attributes['gpu.nvidia.com'].mig", H100)).isTrue();
    assertThat(
            selects(
                "device.attributes['gpu.nvidia.com'].driverVersion.isGreaterThan(semver('550.0.0'))",
                A100_40))
        .isFalse();
    assertThat(
            selects(
                "device.attributes['gpu.nvidia.com'].driverVersion.compareTo(semver('550.54.15')) == 0",
                H100))
        .isTrue();
  }

  @Test
  void aNameTheDeviceLacksFailsTheExpressionSoItSelectsNot() {
    // As in Kubernetes: a domain the device has nothing in is an empty map, a missing name an
    // error; a guard ("in") makes the expression total.
    assertThat(selects("device.attributes['other.example.com'].model == 'x'", H100)).isFalse();
    assertThat(selects("!('model' in device.attributes['other.example.com'])", H100)).isTrue();
    assertThat(
            selects(
                "'memory' in device.capacity['other.example.com'] &&"
                    + " device.capacity['other.example.com'].memory.sign() > 0",
                H100))
        .isFalse();
  }

  @Test
  void quantityFunctionsFollowKubernetes() {
    assertThat(
            selects(
                "quantity('1.5Gi').isInteger() && quantity('1.5Gi').asInteger() == 1610612736",
                H100))
        .isTrue();
    assertThat(selects("quantity('500m').isInteger()", H100)).isFalse();
    assertThat(selects("isQuantity('80Gi') && !isQuantity('80 GiB')", H100)).isTrue();
    assertThat(selects("quantity('40Gi').add(quantity('40Gi')) == quantity('80Gi')", H100))
        .isTrue();
    assertThat(selects("quantity('1k').sub(1000).sign() == 0", H100)).isTrue();
    assertThat(selects("quantity('invalid') == quantity('1')", H100))
        .as("an invalid quantity is an error")
        .isFalse();
  }

  @Test
  void whatKubernetesRefusesDoesNotCompile() {
    // A quantity has no ordering operators in Kubernetes' CEL: compareTo or isGreaterThan.
    assertThat(
            DeviceSelectorCel.problem(
                "device.capacity['gpu.nvidia.com'].memory >= quantity('80Gi')"))
        .hasValueSatisfying(p -> assertThat(p).contains("_>=_"));
    assertThat(DeviceSelectorCel.problem("device.model == 'H100'"))
        .as("no such field of device")
        .isPresent();
    assertThat(DeviceSelectorCel.problem("device.driver")).as("not a bool").isPresent();
    assertThat(DeviceSelectorCel.problem("device.driver == ")).as("syntax").isPresent();
    assertThat(DeviceSelectorCel.problem("node.name == 'a'")).as("undeclared").isPresent();
    assertThat(
            DeviceSelectorCel.problem(
                "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('80Gi')) >= 0"))
        .isEmpty();
    assertThatThrownBy(() -> DeviceSelectorCel.compile("device."))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void quantitiesAndVersionsParseAsKubernetesWritesThem() {
    assertThat(CelQuantity.parse("80Gi").orElseThrow().amount().longValueExact())
        .isEqualTo(80L << 30);
    assertThat(CelQuantity.parse("1e3").orElseThrow())
        .isEqualTo(CelQuantity.parse("1k").orElseThrow());
    assertThat(CelQuantity.parse("250m").orElseThrow().amount()).isEqualByComparingTo("0.25");
    assertThat(CelQuantity.parse("80 Gi")).isEmpty();
    assertThat(CelQuantity.parse("Gi")).isEmpty();
    assertThat(CelSemver.parse("1.2.3-rc.1").orElseThrow())
        .isLessThan(CelSemver.parse("1.2.3").orElseThrow());
    assertThat(CelSemver.parse("1.10.0").orElseThrow())
        .isGreaterThan(CelSemver.parse("1.9.9").orElseThrow());
    assertThat(CelSemver.parse("1.2")).isEmpty();
  }

  @Test
  void eachDistinctExpressionIsCompiledOnce() {
    String e = "device.attributes['gpu.nvidia.com'].cores >= 100";
    assertThat(DeviceSelectorCel.compiled(e)).isSameAs(DeviceSelectorCel.compiled(e));
    assertThat(DeviceSelectorCel.compiled(e).selects(H100)).isTrue();
    // A refusal is kept too, and said again each time.
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> DeviceSelectorCel.compiled("device.nope"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("nope");
    }
  }
}
