package dev.berth.operator.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodRequestsTest {

  @Test
  void sumsContainersTakesTheLargestInitContainerAndAddsOverhead() {
    PodSpec spec =
        new PodSpecBuilder()
            .addNewContainer()
            .withName("a")
            .withNewResources()
            .addToRequests("cpu", new Quantity("500m"))
            .addToRequests("memory", new Quantity("1Gi"))
            .endResources()
            .endContainer()
            .addNewContainer()
            .withName("b")
            .withNewResources()
            .addToRequests("cpu", new Quantity("1"))
            .endResources()
            .endContainer()
            .addNewInitContainer()
            .withName("init")
            .withNewResources()
            .addToRequests("cpu", new Quantity("4"))
            .endResources()
            .endInitContainer()
            .withOverhead(Map.of("memory", new Quantity("128Mi")))
            .build();
    Map<String, Quantity> requests = PodRequests.of(spec);
    assertThat(requests.get("cpu").getNumericalAmount()).isEqualByComparingTo("4");
    assertThat(requests.get("memory").getNumericalAmount())
        .isEqualByComparingTo(String.valueOf(1024L * 1024 * 1024 + 128L * 1024 * 1024));
  }

  @Test
  void aLimitStandsInForAMissingRequest() {
    PodSpec spec =
        new PodSpecBuilder()
            .addNewContainer()
            .withName("gpu")
            .withNewResources()
            .addToLimits("nvidia.com/gpu", new Quantity("8"))
            .endResources()
            .endContainer()
            .build();
    assertThat(PodRequests.of(spec).get("nvidia.com/gpu").getNumericalAmount())
        .isEqualByComparingTo("8");
  }
}
