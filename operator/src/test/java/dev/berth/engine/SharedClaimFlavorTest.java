package dev.berth.engine;

import static dev.berth.engine.Builders.clusterQueue;
import static dev.berth.engine.Builders.flavor;
import static dev.berth.engine.Builders.workload;
import static dev.berth.engine.model.PendingReason.NoMatchingFlavor;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A shared ResourceClaim is the team's and cannot be narrowed by Berth, so a flavor whose device
 * selectors narrow its DeviceClass fits its podSet only when the claim carries each of them.
 */
class SharedClaimFlavorTest {
  private static final String GPU = "nvidia.com/gpu";
  private static final String CLASS = "gpu.nvidia.com";
  private static final String AT_LEAST_80GI =
      "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('80Gi')) >= 0";

  private static Builders.FlavorBuilder big() {
    return flavor("gpu-80gi").deviceSelector(null, AT_LEAST_80GI);
  }

  static Stream<Scenario> cases() {
    return Stream.of(
        Scenario.named("a claim without the selector skips the selector flavor")
            .flavors(big(), flavor("gpu-any"))
            .queues(
                clusterQueue("cq").flavor("gpu-80gi").res(GPU, "8").flavor("gpu-any").res(GPU, "8"))
            .pending(workload("w").podSet("main", 4).sharedClaim("shared-gpus", GPU, "2", CLASS))
            .assigns("w", "main", GPU, "gpu-any"),
        Scenario.named("with the selector flavor alone it is not admitted, and says why")
            .flavors(big())
            .queues(clusterQueue("cq").flavor("gpu-80gi").res(GPU, "8"))
            .pending(workload("w").podSet("main", 4).sharedClaim("shared-gpus", GPU, "2", CLASS))
            .admits()
            .pendingWith(
                "w",
                NoMatchingFlavor,
                "flavor gpu-80gi selects devices of DeviceClass gpu.nvidia.com by '"
                    + AT_LEAST_80GI
                    + "', which shared ResourceClaim shared-gpus (request gpus) does not carry"),
        Scenario.named("a claim carrying the selector is admitted on the flavor")
            .flavors(big(), flavor("gpu-any"))
            .queues(
                clusterQueue("cq").flavor("gpu-80gi").res(GPU, "8").flavor("gpu-any").res(GPU, "8"))
            .pending(
                workload("w")
                    .podSet("main", 4)
                    .sharedClaim(
                        "shared-gpus", GPU, "2", CLASS, "device.driver != ''", AT_LEAST_80GI))
            .assigns("w", "main", GPU, "gpu-80gi"),
        Scenario.named("every selector of the flavor must be carried")
            .flavors(
                big().deviceSelector(CLASS, "device.attributes['gpu.nvidia.com'].mig == false"))
            .queues(clusterQueue("cq").flavor("gpu-80gi").res(GPU, "8"))
            .pending(
                workload("w")
                    .podSet("main", 1)
                    .sharedClaim("shared-gpus", GPU, "2", CLASS, AT_LEAST_80GI))
            .admits()
            .pendingWith("w", NoMatchingFlavor, "mig == false"),
        Scenario.named("a selector of another DeviceClass narrows nothing here")
            .flavors(flavor("gpu-80gi").deviceSelector("mig.nvidia.com", "false"))
            .queues(clusterQueue("cq").flavor("gpu-80gi").res(GPU, "8"))
            .pending(workload("w").podSet("main", 1).sharedClaim("shared-gpus", GPU, "2", CLASS))
            .assigns("w", "main", GPU, "gpu-80gi"),
        Scenario.named(
                "a selector flavor of another resource group narrows nothing the claim holds")
            .flavors(big(), flavor("gpu-any"))
            .queues(
                clusterQueue("cq")
                    .flavor("gpu-80gi")
                    .res("cpu", "8")
                    .newGroup()
                    .flavor("gpu-any")
                    .res(GPU, "8"))
            .pending(
                workload("w")
                    .podSet("main", 1, "cpu", "1")
                    .sharedClaim("shared-gpus", GPU, "2", CLASS))
            .assigns("w", "main", "cpu", "gpu-80gi")
            .assigns("w", "main", GPU, "gpu-any"),
        Scenario.named("devices of the pods' own claims are narrowed by Berth: no bar")
            .flavors(big())
            .queues(clusterQueue("cq").flavor("gpu-80gi").res(GPU, "8"))
            .pending(workload("w").podSet("main", 2, GPU, "1"))
            .assigns("w", "main", GPU, "gpu-80gi"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void sharedClaims(Scenario scenario) {
    scenario.run();
  }
}
