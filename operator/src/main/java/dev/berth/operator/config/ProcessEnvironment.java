package dev.berth.operator.config;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The one reader of the process's environment variables in the operator (an architecture test holds
 * it so): Berth's own are overrides of the configuration ({@link ConfigurationLoader}); the
 * Kubernetes client's say which cluster to talk to.
 */
public final class ProcessEnvironment {
  private ProcessEnvironment() {}

  static Map<String, String> variables() {
    return System.getenv();
  }

  /**
   * {@code BERTH_LOG_FORMAT} alone, read before the configuration file: the log format has to be
   * set before the first line is logged (SLF4J binds its provider then), and the file is read after
   * that. A deployment-level variable, like {@code BERTH_NAMESPACE}; the chart sets it from {@code
   * logging.format}.
   */
  public static Map<String, String> logSettings() {
    String format = System.getenv("BERTH_LOG_FORMAT");
    return format == null ? Map.of() : Map.of("BERTH_LOG_FORMAT", format);
  }

  /**
   * Whether there is a cluster to run against: in a Pod ({@code KUBERNETES_SERVICE_HOST}), or a
   * kubeconfig ({@code KUBECONFIG}'s first file, else ~/.kube/config).
   */
  public static boolean clusterConfigured() {
    if (System.getenv("KUBERNETES_SERVICE_HOST") != null) {
      return true;
    }
    String kubeconfig = System.getenv("KUBECONFIG");
    Path path =
        kubeconfig != null && !kubeconfig.isBlank()
            ? Path.of(kubeconfig.split(File.pathSeparator)[0])
            : Path.of(System.getProperty("user.home"), ".kube", "config");
    return Files.exists(path);
  }
}
