package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a person sees in the terminal of local mode: the jar ./berth runs when there is no cluster
 * (local/target/berth-local.jar, with its own log configuration, not the suite's), started as a
 * process with the samples, its standard output and error read together. Berth's own stream is
 * there (admissions, finishes, queue counts); the noise a first start used to print is not: SLF4J's
 * notices, fabric8's unstable-version warnings, JOSDK's configuration dump, a "webhooks off" next
 * to the HTTPS link, netty's TLS notices and the idle watches' reopen lines (the watches are made
 * silent after 3 s here, so several reopen while it runs).
 */
class LocalModeTerminalE2EIT {
  private static final Duration START = Duration.ofSeconds(300);
  private static Process local;
  private static Path terminal;

  @BeforeAll
  static void startLocalModeAsBerthDoes() throws IOException {
    Path repo = Path.of(System.getProperty("berth.repo"));
    Path jar = repo.resolve("local/target/berth-local.jar");
    assertThat(jar)
        .as("local mode's jar: build with -am so that the local module's package phase makes it")
        .isRegularFile();
    Path work = Path.of("target/local-mode-terminal").toAbsolutePath();
    Files.createDirectories(work);
    terminal = work.resolve("terminal.log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-jar", jar.toString(), "--local"));
    command.addAll(LocalModeOptions.of(work));
    ProcessBuilder berth =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(terminal.toFile());
    berth.environment().remove("JAVA_TOOL_OPTIONS");
    berth.environment().put("BERTH_WATCH_SILENCE_SECONDS", "3");
    local = berth.start();
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (local != null) {
      // Ctrl-C: its shutdown hook stops the operator and the control plane's processes.
      local.destroy();
      if (!local.waitFor(90, TimeUnit.SECONDS)) {
        local.destroyForcibly();
      }
    }
  }

  private static String output() {
    try {
      return Files.readString(terminal, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  @Test
  void showsBerthsOwnStreamAndNoNoise() {
    await("admissions and finishes in local mode's terminal (" + terminal + ")")
        .atMost(START)
        .pollInterval(Duration.ofSeconds(1))
        .failFast(() -> assertThat(local.isAlive()).as(LocalModeTerminalE2EIT::output).isTrue())
        .untilAsserted(
            () ->
                assertThat(output())
                    .contains("berth: watching admissions; Ctrl-C stops everything")
                    .containsPattern("(?m)^\\d\\d:\\d\\d:\\d\\d  ADMITTED ")
                    .containsPattern("(?m)^\\d\\d:\\d\\d:\\d\\d  FINISHED "));
    // A Job finishes 5 s after it runs, which is after the operator's watches started: by then
    // its idle ones (no events, a bookmark about once a minute) passed their 3 s bound.
    String out = output();
    List<String> noise =
        List.of(
            "SLF4J",
            "with unstable version",
            "Created configuration for reconciler",
            "webhooks off",
            "BoringSSL doesn't allow",
            "heard nothing",
            "Exception");
    assertThat(noise).allSatisfy(n -> assertThat(out).as(out).doesNotContain(n));
    // Nothing of the operator's log at info (its start-up lines repeat the berth: lines), and no
    // warning: a healthy start has none.
    assertThat(out.lines().filter(l -> l.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\[.*")))
        .as("the operator's log in local mode's terminal:\n" + out)
        .isEmpty();
    assertThat(out).contains("berth: webhooks on https://127.0.0.1:");
  }
}
