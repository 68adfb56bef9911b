package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@code kubectl berth} as kubectl finds a plugin: a {@code kubectl-berth} on its PATH. */
final class KubectlBerthPlugin {
  private KubectlBerthPlugin() {}

  /**
   * Writes {@code bin/kubectl-berth}, which runs this checkout's plugin jar (started for a short
   * command: C1 only, the serial collector), and returns {@code bin}, to put first on PATH.
   */
  static Path installIn(Path bin) throws IOException {
    Path jar = Path.of(System.getProperty("berth.repo"), "kubectl-plugin/target/kubectl-berth.jar");
    assertThat(jar).exists();
    Files.createDirectories(bin);
    Path launcher = bin.resolve("kubectl-berth");
    Files.writeString(
        launcher,
        "#!/bin/sh\nexec '"
            + Path.of(System.getProperty("java.home"), "bin", "java")
            + "' -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -jar '"
            + jar
            + "' \"$@\"\n");
    assertThat(launcher.toFile().setExecutable(true)).isTrue();
    return bin;
  }
}
