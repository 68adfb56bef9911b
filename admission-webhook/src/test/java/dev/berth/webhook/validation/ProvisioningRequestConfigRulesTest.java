package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.ProvisioningRequestConfig;
import dev.berth.api.v1beta1.ProvisioningRequestConfigSpec;
import dev.berth.api.v1beta1.ProvisioningRequestConfigSpec.RetryStrategy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** ProvisioningRequestConfig objects: each refusal names its field. */
class ProvisioningRequestConfigRulesTest {
  private static ProvisioningRequestConfig config(String className) {
    ProvisioningRequestConfig c = new ProvisioningRequestConfig();
    c.getMetadata().setName("spot-h100");
    c.setSpec(new ProvisioningRequestConfigSpec(className));
    return c;
  }

  private static List<String> paths(ProvisioningRequestConfig c) {
    return BerthValidators.provisioningRequestConfig(c).stream().map(FieldError::path).toList();
  }

  @Test
  void aFullConfigPasses() {
    ProvisioningRequestConfig c = config("best-effort-atomic-scale-up.autoscaling.x-k8s.io");
    c.getSpec().managedResources = List.of("nvidia.com/gpu");
    c.getSpec().parameters = Map.of("ValidUntilSeconds", "600");
    c.getSpec().retryStrategy = new RetryStrategy(3, 60, 1800);
    assertThat(BerthValidators.provisioningRequestConfig(c)).isEmpty();
    assertThat(
            BerthValidators.provisioningRequestConfig(
                config("check-capacity.autoscaling.x-k8s.io")))
        .isEmpty();
  }

  @Test
  void theClassIsRequiredAndADnsSubdomain() {
    assertThat(paths(config(null))).containsExactly("spec.provisioningClassName");
    assertThat(paths(config("Check_Capacity"))).containsExactly("spec.provisioningClassName");
    ProvisioningRequestConfig none = new ProvisioningRequestConfig();
    assertThat(paths(none)).containsExactly("spec");
  }

  @Test
  void managedResourcesAreResourceNamesListedOnce() {
    ProvisioningRequestConfig c = config("check-capacity.autoscaling.x-k8s.io");
    c.getSpec().managedResources = List.of("nvidia.com/gpu", "bad name", "nvidia.com/gpu");
    assertThat(paths(c)).containsExactly("spec.managedResources[1]", "spec.managedResources[2]");
  }

  @Test
  void parametersStayWithinTheProvisioningRequestsBounds() {
    ProvisioningRequestConfig c = config("check-capacity.autoscaling.x-k8s.io");
    Map<String, String> parameters = new HashMap<>();
    parameters.put("ValidUntilSeconds", "x".repeat(256));
    parameters.put("9lives", "1");
    c.getSpec().parameters = parameters;
    assertThat(paths(c))
        .containsExactlyInAnyOrder("spec.parameters[ValidUntilSeconds]", "spec.parameters[9lives]");
    Map<String, String> many = new HashMap<>();
    for (int i = 0; i < 101; i++) {
      many.put("P" + i, "v");
    }
    c.getSpec().parameters = many;
    assertThat(paths(c)).containsExactly("spec.parameters");
  }

  @Test
  void theRetryStrategyNamesItsField() {
    ProvisioningRequestConfig c = config("check-capacity.autoscaling.x-k8s.io");
    c.getSpec().retryStrategy = new RetryStrategy(-1, -1, null);
    assertThat(paths(c))
        .containsExactly(
            "spec.retryStrategy.backoffLimitCount", "spec.retryStrategy.backoffBaseSeconds");
    c.getSpec().retryStrategy = new RetryStrategy(1, 120, 60);
    assertThat(paths(c)).containsExactly("spec.retryStrategy.backoffMaxSeconds");
    c.getSpec().retryStrategy = new RetryStrategy(null, 3600, null);
    assertThat(BerthValidators.provisioningRequestConfig(c))
        .singleElement()
        .satisfies(e -> assertThat(e.message()).contains("at least backoffBaseSeconds (3600)"));
  }

  @Test
  void kueuesZeroSecondBackoffIsAccepted() {
    // Kueue's own provisioning example sets backoffBaseSeconds: 0 (retry at once).
    ProvisioningRequestConfig c = config("check-capacity.autoscaling.x-k8s.io");
    c.getSpec().retryStrategy = new RetryStrategy(2, 0, 1800);
    assertThat(BerthValidators.provisioningRequestConfig(c)).isEmpty();
    c.getSpec().retryStrategy = new RetryStrategy(2, 0, 0);
    assertThat(BerthValidators.provisioningRequestConfig(c)).isEmpty();
  }
}
