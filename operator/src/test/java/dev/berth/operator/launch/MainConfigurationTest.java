package dev.berth.operator.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar's entry point refuses a wrong configuration before it starts anything: it exits non-zero
 * with every wrong field's path on stderr, and never connects to the cluster its kubeconfig names.
 */
class MainConfigurationTest {
  @Test
  void aWrongFileStopsTheStartWithItsPathsOnStderr(@TempDir Path dir) throws Exception {
    Path config =
        Files.writeString(
            dir.resolve("config.yaml"),
            "apiVersion: config.berth.dev/v1beta1\n"
                + "kind: Configuration\n"
                + "clientConnection: {qps: 0}\n"
                + "integrations: {frameworks: [kubeflow.org/tfjob]}\n");
    Result run = main(dir, List.of("--config", config.toString()), null);
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.stderr())
        .contains("configuration " + config + " refused:")
        .contains("clientConnection.qps: must be > 0, got 0")
        .contains("integrations.frameworks[0]: unknown framework \"kubeflow.org/tfjob\"");
  }

  @Test
  void aWrongVariableStopsTheStartToo(@TempDir Path dir) throws Exception {
    Result run = main(dir, List.of(), "BERTH_WRITERS=0");
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.stderr())
        .contains("clientConnection.writers (BERTH_WRITERS): must be from 1 to 256, got 0");
  }

  private record Result(int exit, String stderr) {}

  /** Main in a JVM of its own, with a kubeconfig (so not local mode) that points nowhere. */
  private static Result main(Path dir, List<String> args, String variable) throws Exception {
    Path kubeconfig =
        Files.writeString(
            dir.resolve("kubeconfig"),
            """
            apiVersion: v1
            kind: Config
            clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
            users: [{name: u, user: {token: t}}]
            contexts: [{name: x, context: {cluster: c, user: u}}]
            current-context: x
            """);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new java.util.ArrayList<>(
            List.of(java, "-cp", System.getProperty("java.class.path"), Main.class.getName()));
    command.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(dir.resolve("stdout").toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("BERTH_"));
    pb.environment().remove("KUBERNETES_SERVICE_HOST");
    pb.environment().put("KUBECONFIG", kubeconfig.toString());
    if (variable != null) {
      String[] kv = variable.split("=", 2);
      pb.environment().put(kv[0], kv[1]);
    }
    Process p = pb.start();
    String stderr = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("Main exits").isTrue();
    return new Result(p.exitValue(), stderr);
  }
}
