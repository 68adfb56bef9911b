package dev.berth.e2e.chart;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Where the repository and the helm binary are, as the build passes them in. */
final class Repo {
  private Repo() {}

  /** The repository root: the berth.repo system property set by src/test/pom.xml. */
  static Path root() {
    String repo = System.getProperty("berth.repo");
    if (repo == null || repo.isBlank()) {
      throw new IllegalStateException("system property berth.repo is not set; run through Maven");
    }
    return Path.of(repo).toAbsolutePath().normalize();
  }

  /**
   * The helm binary built by scripts/helm-binary.sh; its path comes from the berth.helm system
   * property (src/test/pom.xml). KUBE_API_TEST_DIR moves the cache, as it does for the API-server
   * binaries.
   */
  static Path helm() {
    String configured = System.getProperty("berth.helm");
    if (configured == null || configured.isBlank()) {
      throw new IllegalStateException("system property berth.helm is not set; run through Maven");
    }
    Path helm = Path.of(configured);
    String testDir = System.getenv("KUBE_API_TEST_DIR");
    if (testDir != null && !testDir.isBlank()) {
      helm = Path.of(testDir, "helm", helm.getParent().getFileName().toString(), "helm");
    }
    if (!Files.isExecutable(helm)) {
      throw new IllegalStateException(
          helm
              + " is missing. Run scripts/helm-binary.sh (needs Go 1.26+); the build runs it in"
              + " the validate phase of the root pom.");
    }
    return helm;
  }

  /** The Helm version pinned in scripts/helm-binary.sh. */
  static String pinnedHelmVersion() {
    String script = ChartApiServer.read(root().resolve("scripts/helm-binary.sh"));
    Matcher m =
        Pattern.compile("HELM_VERSION=\"\\$\\{BERTH_HELM_VERSION:-([0-9.]+)}\"").matcher(script);
    if (!m.find()) {
      throw new IllegalStateException("no HELM_VERSION pin in scripts/helm-binary.sh");
    }
    return m.group(1);
  }
}
