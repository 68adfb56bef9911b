package dev.berth.local;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The rest of a control plane beside an API server, for local mode and the end-to-end suite alike:
 * kube-controller-manager with a cluster's controllers ({@link #CONTROLLERS}: Jobs, garbage
 * collection, namespaces, service accounts, Node lifecycle), kube-scheduler, KWOK as the kubelet of
 * simulated Nodes, and the real JobSet controller where scripts/jobset-binary.sh could build it.
 * Each process logs to a file in the log directory, which outlives it; {@link #close()} stops them
 * all, in reverse order.
 */
public final class LocalControlPlane implements AutoCloseable {
  /**
   * A cluster's controllers for Jobs, pods, Nodes and namespaces. The node lifecycle controller
   * lifts the not-ready taint the API server puts on new Nodes once KWOK reports them Ready.
   */
  public static final List<String> CONTROLLERS =
      List.of(
          "clusterrole-aggregation-controller",
          "serviceaccount-controller",
          "namespace-controller",
          "garbage-collector-controller",
          "job-controller",
          // Serving: a Deployment's ReplicaSet makes its pods, each queued on its own, and a
          // StatefulSet its pods, queued as one group.
          "deployment-controller",
          "replicaset-controller",
          "statefulset-controller",
          "pod-garbage-collector-controller",
          // DRA: each pod's ResourceClaim made from its template, and released when it ends.
          "resourceclaim-controller",
          "node-lifecycle-controller");

  private static final int NODE_READY_SECONDS = 60;

  private final Path logDir;
  private final List<AutoCloseable> processes = new ArrayList<>();
  private Optional<JobSetController> jobSet = Optional.empty();

  private LocalControlPlane(Path logDir) {
    this.logDir = logDir;
  }

  /**
   * Starts the processes for the API server of {@code kubeconfig}, creates {@code nodes} (made by
   * {@link KwokNodes}) and waits until each is Ready and schedulable. With a {@code defaultRunFor}
   * a pod without a {@link Kwok#RUN_FOR} annotation succeeds after it; without, it runs until
   * deleted.
   */
  public static LocalControlPlane start(
      KubernetesClient admin,
      String kubeconfig,
      Path logDir,
      List<Node> nodes,
      Optional<Duration> defaultRunFor)
      throws IOException {
    return start(admin, kubeconfig, logDir, nodes, defaultRunFor, true);
  }

  /** As above; with {@code jobSetController} false, no JobSet controller runs even if built. */
  public static LocalControlPlane start(
      KubernetesClient admin,
      String kubeconfig,
      Path logDir,
      List<Node> nodes,
      Optional<Duration> defaultRunFor,
      boolean jobSetController)
      throws IOException {
    return start(
        admin, kubeconfig, logDir, nodes, defaultRunFor, jobSetController, Optional.empty());
  }

  /**
   * As above, with kube-controller-manager and kube-scheduler set for thousands of Jobs and Nodes
   * ({@code rate}) instead of their defaults.
   */
  public static LocalControlPlane start(
      KubernetesClient admin,
      String kubeconfig,
      Path logDir,
      List<Node> nodes,
      Optional<Duration> defaultRunFor,
      boolean jobSetController,
      Optional<ControlPlaneScale> rate)
      throws IOException {
    Files.createDirectories(logDir);
    LocalControlPlane plane = new LocalControlPlane(logDir);
    try {
      plane.startProcesses(admin, kubeconfig, nodes, defaultRunFor, jobSetController, rate);
    } catch (IOException | RuntimeException e) {
      plane.close();
      throw e;
    }
    return plane;
  }

  private void startProcesses(
      KubernetesClient admin,
      String kubeconfigYaml,
      List<Node> nodes,
      Optional<Duration> defaultRunFor,
      boolean jobSetController,
      Optional<ControlPlaneScale> rate)
      throws IOException {
    Path kubeconfig = logDir.resolve("admin.kubeconfig");
    Files.writeString(kubeconfig, kubeconfigYaml, StandardCharsets.UTF_8);
    processes.add(ControllerManager.start(admin, kubeconfigYaml, logDir, CONTROLLERS, rate));
    LoggedProcess scheduler = KubeScheduler.start(kubeconfig, logDir, rate);
    processes.add(scheduler);
    LoggedProcess kwok = Kwok.start(kubeconfig, logDir, defaultRunFor, rate);
    processes.add(kwok);
    if (jobSetController) {
      jobSet = JobSetController.startIfBuilt(admin, kubeconfig, logDir);
    }
    jobSet.ifPresent(processes::add);
    for (Node node : nodes) {
      admin.nodes().resource(node).create();
    }
    for (Node node : nodes) {
      String name = node.getMetadata().getName();
      try {
        admin
            .nodes()
            .withName(name)
            .waitUntilCondition(
                n -> ready(n) || !kwok.alive(), NODE_READY_SECONDS, TimeUnit.SECONDS);
      } catch (RuntimeException e) {
        throw new IllegalStateException(
            "node "
                + name
                + " not Ready and untainted within "
                + NODE_READY_SECONDS
                + " s; KWOK log "
                + kwok.log()
                + ":\n"
                + kwok.tail(),
            e);
      }
      kwok.checkAlive();
    }
    scheduler.checkAlive();
    jobSet.ifPresent(JobSetController::checkAlive);
  }

  /** Ready, and schedulable: the node lifecycle controller has lifted the not-ready taint. */
  static boolean ready(Node node) {
    return node != null
        && node.getStatus() != null
        && node.getStatus().getConditions() != null
        && node.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()))
        && (node.getSpec().getTaints() == null
            || node.getSpec().getTaints().stream()
                .noneMatch(t -> t.getKey().startsWith("node.kubernetes.io/")));
  }

  /** Whether the real JobSet controller runs (scripts/jobset-binary.sh built it). */
  public boolean realJobSet() {
    return jobSet.isPresent();
  }

  public Path logDir() {
    return logDir;
  }

  @Override
  public void close() {
    for (int i = processes.size() - 1; i >= 0; i--) {
      try {
        processes.get(i).close();
      } catch (Exception e) {
        System.err.println("berth: stopping a control-plane process: " + e);
      }
    }
    processes.clear();
  }
}
