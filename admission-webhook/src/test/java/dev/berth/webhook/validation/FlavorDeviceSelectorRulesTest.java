package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A ResourceFlavor's device selectors: each expression compiles in DRA's CEL environment, each
 * refusal names the exact field.
 */
class FlavorDeviceSelectorRulesTest {
  private static List<FieldError> flavor(String selectors) {
    return TestObjects.validate(
        """
        apiVersion: berth.dev/v1beta1
        kind: ResourceFlavor
        metadata: {name: gpus-80gi}
        spec:
          deviceSelectors:
        """
            + selectors.indent(2));
  }

  @Test
  void selectorsDraWouldAcceptAreAccepted() {
    assertThat(
            flavor(
                """
                - cel:
                    expression: device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("80Gi")) >= 0
                - deviceClassName: gpu.nvidia.com
                  cel: {expression: "device.attributes['gpu.nvidia.com'].productName != 'A100'"}
                """))
        .isEmpty();
  }

  @Test
  void anExpressionThatDoesNotCompileIsRefusedAtItsPath() {
    List<FieldError> errors =
        flavor(
            """
            - cel: {expression: "device.driver == 'gpu.nvidia.com'"}
            - cel: {expression: "device.capacity['gpu.nvidia.com'].memory >= quantity('80Gi')"}
            """);
    assertThat(errors)
        .extracting(FieldError::path)
        .containsExactly("spec.deviceSelectors[1].cel.expression");
    assertThat(errors.get(0).message())
        .contains("compilation failed")
        .contains("compareTo(quantity(\"80Gi\")) >= 0");
  }

  @Test
  void aMissingExpressionOrABadClassNameIsRefusedAtItsPath() {
    assertThat(
            flavor(
                """
                - deviceClassName: Not_A_Name
                  cel: {expression: "true"}
                - deviceClassName: gpu.nvidia.com
                - cel: {expression: "device.driver"}
                """))
        .extracting(FieldError::path)
        .containsExactly(
            "spec.deviceSelectors[0].deviceClassName",
            "spec.deviceSelectors[1].cel.expression",
            "spec.deviceSelectors[2].cel.expression");
  }
}
