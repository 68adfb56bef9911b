package dev.berth.e2e.plane;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.local.ControlPlaneScale;
import dev.berth.local.Kwok;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real KWOK binary reads the workers of a {@link ControlPlaneScale} from the configuration file
 * Berth writes, beside the stages: KWOK ignores what it does not know, so a misspelt field or kind
 * would leave it at 4 workers without a word. Its debug log prints the configuration it loaded, and
 * it exits for want of a kubeconfig right after.
 */
class KwokConfigurationIT {
  @Test
  void kwokLoadsTheStagesAndItsWorkersFromOneFile(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("kwok.yaml");
    Files.writeString(
        config,
        Kwok.config(
            Optional.of(Duration.ofSeconds(30)),
            Optional.of(new ControlPlaneScale(200, 400, 50, Duration.ofMinutes(5), 37))),
        StandardCharsets.UTF_8);

    String log = run(dir, config);

    String loaded =
        log.lines().filter(l -> l.contains("\"msg\":\"Load config\"")).findFirst().orElse("");
    assertThat(loaded)
        .as("KWOK's debug line for the configuration it loaded, in:%n%s", log)
        .contains("\"PodPlayStageParallelism\":37")
        .contains("\"NodePlayStageParallelism\":37")
        .contains("\"NodeLeaseParallelism\":37");
    assertThat(log).doesNotContain("No pod stages found").doesNotContain("No node stages found");
  }

  private static String run(Path dir, Path config) throws IOException, InterruptedException {
    Path out = dir.resolve("kwok.log");
    Process kwok =
        new ProcessBuilder(
                List.of(
                    Kwok.binary().toString(),
                    "--config=" + config,
                    "--kubeconfig=" + dir.resolve("no-such-kubeconfig"),
                    "-v=DEBUG"))
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    if (!kwok.waitFor(60, TimeUnit.SECONDS)) {
      kwok.destroyForcibly();
    }
    return Files.readString(out, StandardCharsets.UTF_8);
  }
}
