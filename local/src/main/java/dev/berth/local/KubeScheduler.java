package dev.berth.local;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** kube-scheduler, which binds pods to Nodes as on a cluster. Built by scripts/kube-binaries.sh. */
final class KubeScheduler {
  private KubeScheduler() {}

  static LoggedProcess start(Path kubeconfig, Path logDir, Optional<ControlPlaneScale> rate)
      throws IOException {
    // Its configuration file, as the command-line --kubeconfig is deprecated. No leader election
    // (one scheduler) and no serving port (nothing scrapes it; fixed ports clash between runs).
    Path config = logDir.resolve("kube-scheduler.yaml");
    Files.writeString(
        config,
        """
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        clientConnection:
          kubeconfig: %s
        %sleaderElection:
          leaderElect: false
        """
            .formatted(
                kubeconfig,
                rate.map(r -> "  qps: %d%n  burst: %d%n".formatted(r.apiQps(), r.apiBurst()))
                    .orElse("")),
        StandardCharsets.UTF_8);
    return LoggedProcess.start(
        "kube-scheduler",
        List.of(
            ControllerManager.binary("kube-scheduler").toString(),
            "--config=" + config,
            "--secure-port=0",
            "--v=1"),
        logDir.resolve("kube-scheduler.log"));
  }
}
