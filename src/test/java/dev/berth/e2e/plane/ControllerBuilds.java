package dev.berth.e2e.plane;

import dev.berth.local.KubeflowTrainer;
import dev.berth.local.LwsController;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Builds, on first use, the third-party controllers local mode only starts when already built
 * (scripts/trainer-binary.sh, scripts/lws-binary.sh; a few minutes each on 2 cores, then cached in
 * ~/.kubeapitest): only the classes that run them call this, so the rest of the suite never pays
 * for the builds. Both need ../shared/third-party ({@link ThirdParty}); without it the scripts say
 * so loudly and nothing is built, and with it a build that fails fails the caller.
 */
public final class ControllerBuilds {
  private ControllerBuilds() {}

  /**
   * Runs scripts/trainer-binary.sh --optional (a no-op once built), its output logged beside the
   * control planes' logs and failing with it; false only when there are no third-party sources at
   * all.
   */
  public static boolean trainer() throws IOException {
    if (KubeflowTrainer.built()) {
      return true;
    }
    Path logDir =
        Path.of(System.getProperty("berth.plane.logs", "target/control-plane"))
            .toAbsolutePath()
            .normalize();
    Files.createDirectories(logDir);
    Path script = script("trainer-binary.sh");
    Path log = logDir.resolve("trainer-build.log");
    long started = System.nanoTime();
    Process build =
        new ProcessBuilder("bash", script.toString(), "--optional")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      if (!build.waitFor(30, TimeUnit.MINUTES)) {
        build.destroyForcibly();
        throw new IllegalStateException(script + " did not finish within 30 min; log " + log);
      }
      if (build.exitValue() != 0 || (!KubeflowTrainer.built() && ThirdParty.present())) {
        throw new IllegalStateException(
            script + " failed (exit " + build.exitValue() + "):\n" + Files.readString(log));
      }
    } catch (InterruptedException e) {
      build.destroy();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted building Kubeflow Trainer", e);
    }
    System.out.println(Files.readString(log));
    if (!KubeflowTrainer.built()) {
      return false;
    }
    System.out.printf(
        "[berth-test] Kubeflow Trainer v%s built in %d s; log %s%n",
        KubeflowTrainer.VERSION, Duration.ofNanos(System.nanoTime() - started).toSeconds(), log);
    return true;
  }

  /**
   * Runs scripts/lws-binary.sh --optional (a no-op once built), its output on this JVM's; false
   * only when there are no third-party sources at all.
   */
  public static boolean leaderWorkerSet() throws IOException {
    if (LwsController.built()) {
      return true;
    }
    Path script = script("lws-binary.sh");
    Process build = new ProcessBuilder("bash", script.toString(), "--optional").inheritIO().start();
    try {
      if (!build.waitFor(20, TimeUnit.MINUTES) || build.exitValue() != 0) {
        build.destroyForcibly();
        throw new IllegalStateException(
            script + " failed (its output is above); the LeaderWorkerSet tests need it");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted building the LWS controller", e);
    }
    if (!LwsController.built() && ThirdParty.present()) {
      throw new IllegalStateException(
          ThirdParty.dir()
              + " is present, but no LeaderWorkerSet controller was built into "
              + LwsController.dir()
              + " from "
              + ControlPlane.lwsTarball());
    }
    return LwsController.built();
  }

  private static Path script(String name) {
    return Path.of(System.getProperty("berth.repo", ".."), "scripts", name)
        .toAbsolutePath()
        .normalize();
  }
}
