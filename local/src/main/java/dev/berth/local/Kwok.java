package dev.berth.local;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * KWOK (sigs.k8s.io/kwok, Kubernetes WithOut Kubelet) as the kubelet of every Node annotated {@code
 * kwok.x-k8s.io/node: fake}: it reports them Ready, renews their Leases and runs the pods
 * kube-scheduler binds to them through the stages in local/kwok-stages.yaml. Built by
 * scripts/kwok-binary.sh.
 */
public final class Kwok {
  /** Pinned in scripts/kwok-binary.sh too, which builds it. */
  public static final String VERSION = "0.8.0";

  /** The annotation KWOK manages Nodes by. */
  public static final String NODE_ANNOTATION = "kwok.x-k8s.io/node";

  /** Pod annotation: a duration such as "3s" after which KWOK marks the running pod Succeeded. */
  public static final String RUN_FOR = "kwok.berth.dev/run-for";

  /** Pod annotation: a duration after which KWOK marks the running pod Failed (exit code 1). */
  public static final String FAIL_AFTER = "kwok.berth.dev/fail-after";

  /** Pod annotation: how long a deleted pod keeps running before it stops (a grace period). */
  public static final String STOP_AFTER = "kwok.berth.dev/stop-after";

  private static final String RUN_FOR_REQUIRED =
      """
          - key: '.metadata.annotations["kwok.berth.dev/run-for"]'
            operator: 'Exists'
      """;

  /**
   * What replaces {@link #RUN_FOR_REQUIRED} under a default run time: a pod that a kubelet would
   * restart (restartPolicy Always: a Deployment's, a StatefulSet's, a bare {@code kubectl run})
   * never succeeds, so it keeps running until deleted, as a server does. Otherwise a serving
   * Deployment's pods would "finish" and be replaced for ever, each replacement queued anew.
   */
  private static final String NOT_RESTARTED =
      """
          - key: '.spec.restartPolicy'
            operator: 'NotIn'
            values:
            - 'Always'
      """;

  private static final String DEFAULT_DELAY =
      "    durationMilliseconds: 0\n    durationFrom:\n"
          + "      expressionFrom: '.metadata.annotations[\"kwok.berth.dev/run-for\"]'";

  private Kwok() {}

  /**
   * Starts KWOK for the API server of {@code kubeconfig}, logging to {@code logDir}/kwok.log; with
   * a {@code scale}, its workers set for it (else KWOK's defaults).
   */
  static LoggedProcess start(
      Path kubeconfig,
      Path logDir,
      Optional<Duration> defaultRunFor,
      Optional<ControlPlaneScale> scale)
      throws IOException {
    Path stages = logDir.resolve("kwok-stages.yaml");
    Files.writeString(stages, config(defaultRunFor, scale), StandardCharsets.UTF_8);
    // --config replaces ~/.kwok/kwok.yaml, so a developer's own KWOK setup does not leak in.
    return LoggedProcess.start(
        "kwok",
        List.of(
            binary().toString(),
            "--kubeconfig=" + kubeconfig,
            "--config=" + stages,
            "--manage-nodes-with-annotation-selector=" + NODE_ANNOTATION + "=fake",
            "--node-lease-duration-seconds=40",
            "--cidr=10.240.0.0/16",
            "--node-ip=10.239.0.1"),
        logDir.resolve("kwok.log"));
  }

  /** What KWOK's {@code --config} reads: the stages and, with a scale, its KwokConfiguration. */
  public static String config(Optional<Duration> defaultRunFor, Optional<ControlPlaneScale> scale)
      throws IOException {
    String stages = stages(defaultRunFor);
    return scale.map(s -> stages + "---\n" + s.kwokConfiguration()).orElse(stages);
  }

  /**
   * The stages; with a default run time every pod that is not {@code restartPolicy: Always}
   * succeeds after it, or after its {@link #RUN_FOR} annotation (as every Job of local mode
   * finishes), and a pod of {@code restartPolicy: Always} runs until deleted; without a default, a
   * pod without the annotation runs until deleted.
   */
  static String stages(Optional<Duration> defaultRunFor) throws IOException {
    String stages;
    try (InputStream in =
        Kwok.class.getClassLoader().getResourceAsStream("local/kwok-stages.yaml")) {
      if (in == null) {
        throw new IllegalStateException("local/kwok-stages.yaml is not on the classpath");
      }
      stages = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    if (defaultRunFor.isEmpty()) {
      return stages;
    }
    if (!stages.contains(RUN_FOR_REQUIRED) || !stages.contains(DEFAULT_DELAY)) {
      throw new IllegalStateException(
          "local/kwok-stages.yaml's pod-succeeded stage changed: "
              + "cannot set a default run time in it");
    }
    return stages
        .replace(RUN_FOR_REQUIRED, NOT_RESTARTED)
        .replace(
            DEFAULT_DELAY,
            DEFAULT_DELAY.replace(
                "durationMilliseconds: 0",
                "durationMilliseconds: " + defaultRunFor.get().toMillis()));
  }

  /** The binary scripts/kwok-binary.sh installs. */
  public static Path binary() {
    Path binary = Binaries.cacheDir().resolve("kwok").resolve("v" + VERSION).resolve("kwok");
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException(
          "no KWOK at " + binary + ". Run scripts/kwok-binary.sh (needs Go 1.26+) to build it.");
    }
    return binary;
  }
}
