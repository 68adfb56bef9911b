package dev.berth.bench.load;

import dev.berth.local.EmbeddedApiServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What every load benchmark does first with its fresh API server: installs Berth's CRDs and writes
 * the kubeconfig the operator's own JVM ({@link OperatorJvm}) is started with.
 */
final class BerthCrdsInstalled {
  private BerthCrdsInstalled() {}

  /** Installs the CRDs and returns the kubeconfig file, {@code dir/kubeconfig}. */
  static Path kubeconfig(EmbeddedApiServer apiServer, Path dir) throws IOException {
    apiServer.install(EmbeddedApiServer.berthCrds());
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(kubeconfig, apiServer.kubeconfig());
    return kubeconfig;
  }
}
