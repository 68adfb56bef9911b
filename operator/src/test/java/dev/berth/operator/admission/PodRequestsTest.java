package dev.berth.operator.admission;

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

  @Test
  void aSidecarAddsToTheContainersAndToEveryLaterInitContainer() {
    PodSpec spec =
        new PodSpecBuilder()
            .addNewInitContainer()
            .withName("setup")
            .withNewResources()
            .addToRequests("cpu", new Quantity("3"))
            .endResources()
            .endInitContainer()
            .addNewInitContainer()
            .withName("sidecar")
            .withRestartPolicy("Always")
            .withNewResources()
            .addToLimits("nvidia.com/gpu", new Quantity("4"))
            .addToRequests("cpu", new Quantity("1"))
            .endResources()
            .endInitContainer()
            .addNewInitContainer()
            .withName("after-sidecar")
            .withNewResources()
            .addToRequests("cpu", new Quantity("2"))
            .addToRequests("nvidia.com/gpu", new Quantity("1"))
            .endResources()
            .endInitContainer()
            .addNewContainer()
            .withName("main")
            .withNewResources()
            .addToLimits("nvidia.com/gpu", new Quantity("4"))
            .addToRequests("cpu", new Quantity("1"))
            .endResources()
            .endContainer()
            .build();
    Map<String, Quantity> requests = PodRequests.of(spec);
    // main 4 + sidecar 4 run together; "after-sidecar" needs 1 + 4, fewer than 8.
    assertThat(requests.get("nvidia.com/gpu").getNumericalAmount()).isEqualByComparingTo("8");
    // containers and sidecar 2; "setup" alone 3; "after-sidecar" 2 + sidecar 1 = 3.
    assertThat(requests.get("cpu").getNumericalAmount()).isEqualByComparingTo("3");
  }

  @Test
  void podLevelRequestsReplaceTheContainersTotalForCpuAndMemoryOnly() {
    PodSpec spec =
        new PodSpecBuilder()
            .withNewResources()
            .addToRequests("cpu", new Quantity("6"))
            .addToLimits("memory", new Quantity("8Gi"))
            .endResources()
            .addNewContainer()
            .withName("main")
            .withNewResources()
            .addToRequests("cpu", new Quantity("1"))
            .addToRequests("memory", new Quantity("1Gi"))
            .addToLimits("nvidia.com/gpu", new Quantity("2"))
            .endResources()
            .endContainer()
            .withOverhead(Map.of("cpu", new Quantity("250m")))
            .build();
    Map<String, Quantity> requests = PodRequests.of(spec);
    assertThat(requests.get("cpu").getNumericalAmount()).isEqualByComparingTo("6.25");
    assertThat(requests.get("memory").getNumericalAmount())
        .isEqualByComparingTo(String.valueOf(8L * 1024 * 1024 * 1024));
    assertThat(requests.get("nvidia.com/gpu").getNumericalAmount()).isEqualByComparingTo("2");
  }
}
