package dev.berth.operator.logging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Through SLF4J itself, in a JVM of its own (SLF4J binds once per JVM) with the operator's class
 * path, where slf4j-simple is the provider found: BERTH_LOG_FORMAT picks the output, and SLF4J says
 * nothing of its own (no "no providers", no "multiple providers").
 */
class LogFormatInstallTest {
  /** The probe JVM's main: what Main does first, then one line at info and one at debug. */
  public static void main(String[] args) {
    LogFormat.from(System.getenv()).install();
    LoggerFactory.getLogger("dev.berth.operator.Probe").info("admitted {}", "team-llm/llama");
    LoggerFactory.getLogger("dev.berth.operator.Probe").debug("not at the default level");
  }

  private static List<String> run(String format) throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    ProcessBuilder probe =
        new ProcessBuilder(
                java.toString(),
                "-cp",
                System.getProperty("java.class.path"),
                LogFormatInstallTest.class.getName())
            .redirectErrorStream(true);
    probe.environment().put(LogFormat.VARIABLE, format);
    Process process = probe.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(out).isZero();
    return out.lines().toList();
  }

  @Test
  void jsonIsOneObjectPerLineAndNothingElse() throws Exception {
    List<String> lines = run("json");
    assertThat(lines).as(String.join("\n", lines)).hasSize(1);
    JsonNode line = new ObjectMapper().readTree(lines.get(0));
    assertThat(line.path("level").asText()).isEqualTo("INFO");
    assertThat(line.path("logger").asText()).isEqualTo("dev.berth.operator.Probe");
    assertThat(line.path("message").asText()).isEqualTo("admitted team-llm/llama");
    assertThat(line.path("time").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
  }

  @Test
  void textIsSlf4jSimplesLineAndNothingElse() throws Exception {
    List<String> lines = run("text");
    assertThat(lines).as(String.join("\n", lines)).hasSize(1);
    assertThat(lines.get(0))
        .matches(
            "\\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\[main\\] INFO dev.berth.operator.Probe -"
                + " admitted team-llm/llama");
  }
}
