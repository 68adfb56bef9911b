package dev.berth.e2e.browser;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real headless Chromium (Debian's {@code chromium} package, installed by scripts/chromium.sh),
 * with the DevTools protocol on a port of its own. No Chromium is a failure, never a skip.
 */
public final class Chromium implements AutoCloseable {
  private final Process process;
  private final Path profile;
  private final int port;

  private Chromium(Process process, Path profile, int port) {
    this.process = process;
    this.profile = profile;
    this.port = port;
  }

  /**
   * Starts Chromium with a fresh profile under {@code workDir}; {@code spkiPin} is the base64
   * SHA-256 of the one server key it accepts beyond the system's CAs (the test's own).
   */
  public static Chromium start(Path workDir, String spkiPin) throws IOException {
    Path profile = workDir.resolve("chromium-profile");
    Files.createDirectories(profile);
    Files.deleteIfExists(profile.resolve("DevToolsActivePort"));
    List<String> command =
        new ArrayList<>(
            List.of(
                binary(),
                "--headless=new",
                // The suite runs as root, where Chromium's sandbox cannot start.
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                "--user-data-dir=" + profile,
                "--ignore-certificate-errors-spki-list=" + spkiPin,
                "--window-size=1280,1600",
                "about:blank"));
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(workDir.resolve("chromium.log").toFile())
            .start();
    Path active = profile.resolve("DevToolsActivePort");
    Instant deadline = Instant.now().plus(Duration.ofSeconds(90));
    while (!Files.exists(active) || Files.readAllLines(active).isEmpty()) {
      if (!process.isAlive() || Instant.now().isAfter(deadline)) {
        process.destroyForcibly();
        throw new IllegalStateException(
            "Chromium did not open its DevTools port: "
                + Files.readString(workDir.resolve("chromium.log")));
      }
      try {
        process.waitFor(200, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
    }
    int port = Integer.parseInt(Files.readAllLines(active).get(0).trim());
    return new Chromium(process, profile, port);
  }

  /** The DevTools HTTP and WebSocket port. */
  public int port() {
    return port;
  }

  /**
   * A DevTools session on a new tab (its own sessionStorage, so each test signs in afresh); closing
   * the session closes the tab.
   */
  public DevTools newPage() throws IOException, InterruptedException {
    return DevTools.newPage(port);
  }

  /** $BERTH_CHROMIUM, or chromium on PATH; else scripts/chromium.sh installs Debian's package. */
  static String binary() throws IOException {
    return dev.berth.e2e.InstalledBinary.find(
        "chromium",
        "BERTH_CHROMIUM",
        "scripts/chromium.sh",
        "the dashboard's browser test (DashboardE2EIT)");
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  Path profile() {
    return profile;
  }
}
