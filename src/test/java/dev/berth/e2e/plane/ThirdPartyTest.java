package dev.berth.e2e.plane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stand-ins replace the real JobSet controller and ProvisioningRequest CRD only on a machine
 * without the third-party sources: where they are, a component that cannot be used fails the run.
 */
class ThirdPartyTest {
  private static final Path SCRIPT =
      Path.of(System.getProperty("berth.repo", "..")).resolve("scripts/jobset-binary.sh");

  @Test
  void aStandInIsAllowedOnlyWithoutTheSourcesOrWhenATestAsksForIt() {
    assertThat(ThirdParty.standInAllowed(false, false, "x", "y")).isTrue();
    assertThat(ThirdParty.standInAllowed(true, true, "x", "y")).isTrue();
    assertThatThrownBy(
            () ->
                ThirdParty.standInAllowed(
                    true, false, "the JobSet controller", "run scripts/jobset-binary.sh"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is present, but the JobSet controller from it cannot be used")
        .hasMessageContaining("run scripts/jobset-binary.sh");
  }

  @Test
  void anUpstreamCrdThatIsNotTheProvisioningRequestCrdFailsTheRun(@TempDir Path dir)
      throws IOException {
    Path notACrd = dir.resolve("garbage.yaml");
    Files.writeString(notACrd, "kind: [unclosed\n");
    assertThatThrownBy(() -> ProvisioningRequestCrd.read(notACrd))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is not a CustomResourceDefinition");

    var other = ProvisioningRequestCrd.standIn();
    other.getMetadata().setName("provisioningrequests.example.com");
    Path otherCrd = dir.resolve("other.yaml");
    Files.writeString(otherCrd, Serialization.asYaml(other));
    assertThatThrownBy(() -> ProvisioningRequestCrd.read(otherCrd))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(
            "does not define provisioningrequests.autoscaling.x-k8s.io serving v1");

    Path standIn = dir.resolve("stand-in.yaml");
    Files.writeString(standIn, Serialization.asYaml(ProvisioningRequestCrd.standIn()));
    assertThat(ProvisioningRequestCrd.read(standIn).getMetadata().getName())
        .isEqualTo("provisioningrequests.autoscaling.x-k8s.io");
  }

  @Test
  void theJobSetBuildIsOptionalOnlyWhereTheSourcesAreAbsent(@TempDir Path dir) throws Exception {
    Path cache = Files.createDirectories(dir.resolve("kubeapitest"));
    Result absent = jobsetBinary(dir.resolve("no-such-dir"), cache);
    assertThat(absent.code()).isZero();
    assertThat(absent.output())
        .contains("NO THIRD-PARTY SOURCES")
        .contains("stand-in (JobSetStandIn)");

    // The directory is there, the JobSet source in it is not: the build fails, naming the file.
    Path present = Files.createDirectories(dir.resolve("third-party"));
    Result missing = jobsetBinary(present, cache);
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.output()).contains("no JobSet v").contains(present.toString());
  }

  private record Result(int code, String output) {}

  private static Result jobsetBinary(Path thirdParty, Path cache) throws Exception {
    List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString(), "--optional"));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("BERTH_THIRD_PARTY", thirdParty.toString());
    pb.environment().put("KUBE_API_TEST_DIR", cache.toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Result(p.exitValue(), out);
  }
}
