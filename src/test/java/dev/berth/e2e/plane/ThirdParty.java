package dev.berth.e2e.plane;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The third-party sources the suite runs the real components from: $BERTH_THIRD_PARTY, else
 * ../shared/third-party beside the repository (the JobSet source scripts/jobset-binary.sh builds,
 * the upstream ProvisioningRequest CRD). Where that directory exists, the suite runs the real ones
 * or fails: a stand-in is only for machines that do not have it, never a silent fallback that would
 * keep a run green while testing less (.ci/run says at start which one this machine gets).
 */
public final class ThirdParty {
  private ThirdParty() {}

  /** The directory, whether or not it exists. */
  public static Path dir() {
    String dir = System.getenv("BERTH_THIRD_PARTY");
    Path path =
        dir != null && !dir.isBlank()
            ? Path.of(dir)
            : Path.of(System.getProperty("berth.repo", "."), "..", "shared", "third-party");
    return path.toAbsolutePath().normalize();
  }

  /** Whether this machine has the third-party sources, so the real components are required. */
  public static boolean present() {
    return Files.isDirectory(dir());
  }

  /**
   * Whether a stand-in may replace the real component: only without the third-party sources, or
   * when a test asks for the stand-in itself. Otherwise throws, naming what is missing and how to
   * get it.
   */
  static boolean standInAllowed(
      boolean thirdPartyPresent, boolean standInAsked, String component, String remedy) {
    if (!thirdPartyPresent || standInAsked) {
      return true;
    }
    throw new IllegalStateException(
        dir()
            + " is present, but "
            + component
            + " from it cannot be used; "
            + remedy
            + " (a stand-in is used only on machines without the third-party sources)");
  }
}
