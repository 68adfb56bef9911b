package dev.berth.e2e.plane;

import dev.berth.e2e.TestApiServer;
import dev.berth.local.EmbeddedApiServer;
import dev.berth.local.JobSetController;
import dev.berth.local.KubeflowTrainer;
import dev.berth.local.Kwok;
import dev.berth.local.LocalControlPlane;
import dev.berth.local.LwsController;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A whole control plane on this machine, for tests about what happens after admission: etcd and
 * kube-apiserver (with Berth's CRDs), and beside it the harness local mode runs on ({@link
 * LocalControlPlane}): kube-controller-manager with the Job controller, the garbage collector and
 * the other controllers of {@link #CONTROLLERS}, kube-scheduler, KWOK playing the kubelet of
 * simulated GPU {@link SimNode}s, and the real JobSet controller where scripts/jobset-binary.sh
 * could build it, else, only on a machine without the third-party sources ({@link ThirdParty}), the
 * suite's {@link JobSetStandIn}. Pods run through the stages in local/kwok-stages.yaml: Running
 * once bound, then Succeeded after their {@link #RUN_FOR} annotation's duration, or Failed after
 * {@link #FAIL_AFTER}'s, or running until deleted (and {@link #STOP_AFTER} longer). Every process
 * logs to {@link #logDir()} (under target/, kept after the run for failed tests) and is stopped by
 * {@link #close()} or, if a test JVM dies first, by a shutdown hook.
 */
public final class ControlPlane implements AutoCloseable {
  /** Pod annotation: a duration such as "3s" after which KWOK marks the running pod Succeeded. */
  public static final String RUN_FOR = Kwok.RUN_FOR;

  /** Pod annotation: a duration after which KWOK marks the running pod Failed (exit code 1). */
  public static final String FAIL_AFTER = Kwok.FAIL_AFTER;

  /** Pod annotation: how long a deleted pod keeps running before it stops (a grace period). */
  public static final String STOP_AFTER = Kwok.STOP_AFTER;

  /**
   * System property: true runs JobSets with {@link JobSetStandIn} even where the real JobSet
   * controller is built (to test the stand-in, as a machine without ../shared would).
   */
  public static final String JOBSET_STAND_IN = "berth.plane.jobset-stand-in";

  /** The controllers kube-controller-manager runs. */
  public static final List<String> CONTROLLERS = LocalControlPlane.CONTROLLERS;

  private final TestApiServer.Cluster cluster;
  private final Path logDir;
  private final Thread shutdownHook;
  private LocalControlPlane plane;
  private JobSetStandIn jobSetStandIn;
  private TrainingOperator trainingOperator;
  private LwsController lws;
  private KubeflowTrainer trainer;
  private boolean stopped;

  private ControlPlane(TestApiServer.Cluster cluster, Path logDir) {
    this.cluster = cluster;
    this.logDir = logDir;
    this.shutdownHook = new Thread(this::stopProcesses, "control-plane-stop");
  }

  /**
   * Six 8-GPU nodes: two on-demand H100 (zone-a), two on-demand A100 (zone-b), two spot H100
   * tainted {@code node.berth.dev/lifecycle=spot:NoSchedule} (zone-c), one rack per node.
   */
  public static List<SimNode> gpuFleet() {
    return List.of(
        SimNode.gpu("h100-a-0", SimNode.H100, "zone-a", "rack-a0"),
        SimNode.gpu("h100-a-1", SimNode.H100, "zone-a", "rack-a1"),
        SimNode.gpu("a100-b-0", SimNode.A100, "zone-b", "rack-b0"),
        SimNode.gpu("a100-b-1", SimNode.A100, "zone-b", "rack-b1"),
        SimNode.spot("spot-h100-c-0", SimNode.H100, "zone-c", "rack-c0"),
        SimNode.spot("spot-h100-c-1", SimNode.H100, "zone-c", "rack-c1"));
  }

  /** Starts everything, creates the nodes and waits until KWOK reports each of them Ready. */
  public static ControlPlane start(String name, List<SimNode> nodes) {
    return start(name, nodes, List.of());
  }

  /**
   * As {@link #start(String, List)}, with {@code crds} installed before kube-controller-manager
   * starts (its garbage collector looks for new kinds only every 30 s).
   */
  private static ControlPlane start(
      String name, List<SimNode> nodes, List<CustomResourceDefinition> crds) {
    long started = System.nanoTime();
    Path logDir =
        logRoot()
            .resolve(
                name
                    + "-"
                    + LocalDateTime.now()
                        .format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS")));
    ControlPlane plane = new ControlPlane(TestApiServer.dedicatedForControllers(), logDir);
    Runtime.getRuntime().addShutdownHook(plane.shutdownHook);
    try {
      EmbeddedApiServer.install(plane.client(), crds);
      plane.startProcesses(nodes);
    } catch (IOException | RuntimeException e) {
      plane.close();
      throw new IllegalStateException("control plane did not start; logs in " + logDir, e);
    }
    System.out.printf(
        "[berth-test] control plane %s with %d KWOK nodes ready in %d ms; logs in %s%n",
        name, nodes.size(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), logDir);
    return plane;
  }

  private void startProcesses(List<SimNode> nodes) throws IOException {
    boolean standIn = Boolean.getBoolean(JOBSET_STAND_IN);
    plane =
        LocalControlPlane.start(
            client(),
            cluster.kubeconfig(),
            logDir,
            nodes.stream().map(SimNode::toNode).toList(),
            Optional.empty(),
            !standIn);
    if (!plane.realJobSet()) {
      ThirdParty.standInAllowed(
          ThirdParty.present(),
          standIn,
          "the JobSet controller built from it (" + JobSetController.VERSION + ")",
          "scripts/jobset-binary.sh builds it from the tarball there; read its output");
      System.out.println(
          "[berth-test] "
              + (standIn
                  ? "-D" + JOBSET_STAND_IN + "=true"
                  : "no JobSet controller built (scripts/jobset-binary.sh needs ../shared/third-party)")
              + ": JobSets run by the suite's stand-in, JobSetStandIn");
      jobSetStandIn = JobSetStandIn.start(client());
    }
  }

  /**
   * Starts the Kubeflow training operator (PyTorchJob and MPIJob) beside the rest, building it on
   * first use ({@link TrainingOperator}); only the classes that run its jobs pay for it.
   */
  public synchronized void startTrainingOperator() {
    if (trainingOperator != null) {
      return;
    }
    try {
      trainingOperator = TrainingOperator.start(client(), adminKubeconfig(), logDir);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Fails with its log's tail if the training operator started here has exited. */
  public void checkTrainingOperator() {
    if (trainingOperator != null) {
      trainingOperator.checkAlive();
    }
  }

  private static Path logRoot() {
    String dir = System.getProperty("berth.plane.logs");
    return Path.of(dir != null ? dir : "target/control-plane").toAbsolutePath().normalize();
  }

  /** The LeaderWorkerSet source scripts/lws-binary.sh builds the controller from. */
  public static Path lwsTarball() {
    return ThirdParty.dir().resolve("lws-v" + LwsController.VERSION + ".tar.gz");
  }

  /**
   * As {@link #start(String, List)}, with the real LeaderWorkerSet controller beside the rest,
   * stopped with it. Only the classes that test LeaderWorkerSets call this, so the rest of the
   * suite never builds nor runs it: it is built here, the first time (scripts/lws-binary.sh, a few
   * minutes on 2 cores, then cached). Its CRDs go in before kube-controller-manager starts, so that
   * a deleted LWS's StatefulSets and pods are collected at once ({@link LwsController#crds}). Empty
   * only on a machine without the third-party sources (the LWS module is not on the Go proxy),
   * which the caller reports as a skip; with them, a controller that does not build or start fails
   * the caller.
   */
  public static Optional<ControlPlane> startWithLeaderWorkerSet(String name, List<SimNode> nodes) {
    return startWith(
        name,
        nodes,
        ControllerBuilds::leaderWorkerSet,
        LwsController::crds,
        plane ->
            plane.lws =
                LwsController.startIfBuilt(plane.client(), plane.adminKubeconfig(), plane.logDir)
                    .orElseThrow());
  }

  /**
   * As {@link #start(String, List)}, with Kubeflow Trainer beside the rest (and the real JobSet
   * controller, which runs the JobSets it makes), stopped with it; only the classes that test
   * TrainJobs call this, so the rest of the suite never builds nor runs it ({@link
   * ControllerBuilds#trainer}: scripts/trainer-binary.sh, several minutes on 2 cores the first
   * time, then cached; then local mode's {@link KubeflowTrainer}). Its CRDs go in before
   * kube-controller-manager starts, so that a deleted TrainJob's JobSet and pods are collected at
   * once, not at the garbage collector's next look for new kinds (up to 30 s later). Empty only on
   * a machine without the third-party sources (the Trainer module needs the JobSet v0.8.2 API from
   * there), which the caller reports as a skip; with them, a Trainer that does not build or start
   * fails the caller.
   */
  public static Optional<ControlPlane> startWithTrainer(String name, List<SimNode> nodes) {
    return startWith(
        name,
        nodes,
        ControllerBuilds::trainer,
        KubeflowTrainer::crds,
        plane ->
            plane.trainer =
                KubeflowTrainer.startIfBuilt(plane.adminKubeconfig(), plane.logDir).orElseThrow());
  }

  /** A step that reads files or runs a process. */
  private interface IoStep<T> {
    T run() throws IOException;
  }

  /** A controller started on a plane. */
  private interface ControllerStart {
    void start(ControlPlane plane) throws IOException;
  }

  /**
   * Builds a controller ({@code build} false: no third-party sources, empty), starts a plane with
   * its CRDs, then the controller on it; a controller that does not start stops the plane.
   */
  private static Optional<ControlPlane> startWith(
      String name,
      List<SimNode> nodes,
      IoStep<Boolean> build,
      IoStep<List<CustomResourceDefinition>> crds,
      ControllerStart controller) {
    try {
      if (!build.run()) {
        return Optional.empty();
      }
      ControlPlane plane = start(name, nodes, crds.run());
      try {
        controller.start(plane);
      } catch (IOException | RuntimeException e) {
        plane.close();
        throw e;
      }
      return Optional.of(plane);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private Path adminKubeconfig() {
    return logDir.resolve("admin.kubeconfig");
  }

  /** The JobSet API source scripts/trainer-binary.sh builds Kubeflow Trainer with. */
  public static Path trainerJobSetTarball() {
    return ThirdParty.dir().resolve(KubeflowTrainer.JOBSET_API_TARBALL);
  }

  /** Fails with its log's tail if the Trainer started here has exited. */
  public void checkTrainer() {
    if (trainer != null) {
      trainer.checkAlive();
    }
  }

  /** Whether JobSets are run by the real JobSet controller (not the suite's stand-in). */
  public boolean realJobSet() {
    return plane != null && plane.realJobSet();
  }

  public KubernetesClient client() {
    return cluster.client();
  }

  public String kubeconfig() {
    return cluster.kubeconfig();
  }

  public Path logDir() {
    return logDir;
  }

  /** The pods the Job controller made for a Job (its job-name label), bound or not. */
  public List<Pod> podsOf(String namespace, String job) {
    return client()
        .pods()
        .inNamespace(namespace)
        .withLabel("batch.kubernetes.io/job-name", job)
        .list()
        .getItems();
  }

  /** The labels of the Node a pod is bound to; empty while it is unbound. */
  public Map<String, String> nodeLabels(Pod pod) {
    String nodeName = pod.getSpec().getNodeName();
    if (nodeName == null) {
      return Map.of();
    }
    return client().nodes().withName(nodeName).get().getMetadata().getLabels();
  }

  /**
   * What a failed test needs to see of a namespace: each Job's suspension and counts, each pod's
   * phase, node and scheduling message, and the events, with where the process logs are.
   */
  public String describe(String namespace) {
    StringBuilder out = new StringBuilder("namespace " + namespace + " (logs in " + logDir + "):");
    for (Job job : client().batch().v1().jobs().inNamespace(namespace).list().getItems()) {
      JobStatus st = job.getStatus() == null ? new JobStatus() : job.getStatus();
      out.append("\n  job ")
          .append(job.getMetadata().getName())
          .append(" suspend=")
          .append(job.getSpec().getSuspend())
          .append(" active=")
          .append(st.getActive())
          .append(" terminating=")
          .append(st.getTerminating())
          .append(" succeeded=")
          .append(st.getSucceeded())
          .append(" failed=")
          .append(st.getFailed())
          .append(" conditions=")
          .append(
              st.getConditions() == null
                  ? List.of()
                  : st.getConditions().stream()
                      .map(c -> c.getType() + "=" + c.getStatus())
                      .toList());
    }
    for (Pod pod : client().pods().inNamespace(namespace).list().getItems()) {
      out.append("\n  pod ")
          .append(pod.getMetadata().getName())
          .append(" phase=")
          .append(pod.getStatus().getPhase())
          .append(" node=")
          .append(pod.getSpec().getNodeName())
          .append(" deleting=")
          .append(pod.getMetadata().getDeletionTimestamp() != null);
      if (pod.getStatus().getConditions() != null) {
        pod.getStatus().getConditions().stream()
            .filter(c -> "PodScheduled".equals(c.getType()) && c.getMessage() != null)
            .forEach(c -> out.append(" scheduling: ").append(c.getMessage()));
      }
    }
    for (Event event : client().v1().events().inNamespace(namespace).list().getItems()) {
      out.append("\n  event ")
          .append(event.getInvolvedObject().getKind())
          .append('/')
          .append(event.getInvolvedObject().getName())
          .append(' ')
          .append(event.getReason())
          .append(": ")
          .append(event.getMessage());
    }
    return out.toString();
  }

  private synchronized void stopProcesses() {
    if (stopped) {
      return;
    }
    stopped = true;
    if (trainingOperator != null) {
      trainingOperator.close();
    }
    if (jobSetStandIn != null) {
      jobSetStandIn.close();
    }
    if (lws != null) {
      lws.close();
    }
    if (trainer != null) {
      trainer.close();
    }
    if (plane != null) {
      plane.close();
    }
    cluster.close();
  }

  @Override
  public void close() {
    stopProcesses();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // The JVM is already stopping; the hook runs stopProcesses, which is idempotent now.
    }
  }
}
