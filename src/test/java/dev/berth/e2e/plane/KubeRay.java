package dev.berth.e2e.plane;

import dev.berth.local.KubeRayOperator;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The real KubeRay operator on a {@link ControlPlane}, for the classes about Ray only (the rest of
 * the suite pays nothing for it). KubeRay is served by the Go module proxy, so it is always built
 * (scripts/kuberay-binary.sh, once; cached after) and never replaced by a stand-in (only the Ray
 * dashboard it polls is one, since no Ray runs: docs/ray.md): a build that fails fails the class.
 */
public final class KubeRay {
  private static final long BUILD_MINUTES = 30;

  private KubeRay() {}

  /** Builds KubeRay if it is not cached yet, then starts it against {@code plane}. */
  public static KubeRayOperator start(ControlPlane plane) throws IOException, InterruptedException {
    ensureBuilt();
    return KubeRayOperator.startIfBuilt(
            plane.client(), plane.logDir().resolve("admin.kubeconfig"), plane.logDir())
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "scripts/kuberay-binary.sh ran but KubeRay v"
                        + KubeRayOperator.VERSION
                        + " is not installed"));
  }

  /** Builds KubeRay if it is not cached yet (for local mode's test, which starts it itself). */
  public static void ensureBuilt() throws IOException, InterruptedException {
    if (!KubeRayOperator.built()) {
      build();
    }
  }

  private static void build() throws IOException, InterruptedException {
    Path script =
        Path.of(System.getProperty("berth.repo", ".."), "scripts", "kuberay-binary.sh")
            .toAbsolutePath()
            .normalize();
    long started = System.nanoTime();
    Process build = new ProcessBuilder("bash", script.toString()).inheritIO().start();
    if (!build.waitFor(BUILD_MINUTES, TimeUnit.MINUTES)) {
      build.destroyForcibly();
      throw new IllegalStateException(script + " did not finish within " + BUILD_MINUTES + " min");
    }
    if (build.exitValue() != 0) {
      throw new IllegalStateException(
          script + " failed (exit " + build.exitValue() + "); its output is above");
    }
    System.out.printf(
        "[berth-test] KubeRay v%s built in %d s%n",
        KubeRayOperator.VERSION, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
  }
}
