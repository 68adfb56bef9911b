package dev.berth.local;

import java.nio.file.Path;

/** Where the scripts in scripts/ cache the binaries they build. */
final class Binaries {
  private Binaries() {}

  /** $KUBE_API_TEST_DIR, or ~/.kubeapitest as kube-api-test uses. */
  static Path cacheDir() {
    String dir = System.getenv("KUBE_API_TEST_DIR");
    return Path.of(dir != null ? dir : System.getProperty("user.home") + "/.kubeapitest");
  }
}
