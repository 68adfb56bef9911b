package dev.berth.bench.load;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueueSpec;
import dev.berth.api.v1beta1.FlavorQuotas;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.LocalQueueSpec;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.ResourceFlavorSpec;
import dev.berth.api.v1beta1.ResourceGroup;
import dev.berth.api.v1beta1.ResourceQuota;
import dev.berth.local.ControlPlaneScale;
import dev.berth.local.EmbeddedApiServer;
import dev.berth.local.KwokNodes;
import dev.berth.local.LocalControlPlane;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Berth at cluster scale on the real control plane: kube-apiserver and etcd,
 * kube-controller-manager (the Job controller makes the pods), kube-scheduler (binds them) and KWOK
 * (runs them on simulated GPU nodes and completes them after {@code runSeconds}). 10 ClusterQueues
 * over 2 cohorts share the cluster's GPUs equally; Jobs of one pod with 1, 2, 4 or 8 GPUs are
 * submitted as fast as a client can create them.
 *
 * <p>Two runs on fresh control planes, side by side: <b>berth</b> (the operator in a JVM of its
 * own, Jobs suspended in a LocalQueue) and <b>floor</b> (no operator, Jobs created unsuspended
 * straight to the scheduler): what the cluster itself takes. Each prints the time from the first
 * submission to every pod Running and to every Job Complete; berth also prints its admissions per
 * second end to end, the API server's requests per admission (from apiserver_request_total, all
 * clients; the floor run's count per Job is the part the cluster makes anyway), and the operator's
 * peak RSS and CPU seconds from its process start to its last Event and usage record ({@link
 * LastWrite}), split into start-up, the run and the billing after the last finish.
 *
 * <pre>
 * ./mvnw -B -o -q -Pbench -DskipTests package -pl benchmarks -am
 * java -Dnodes=1000 -Djobs=10000 -cp benchmarks/target/benchmarks.jar \
 *     dev.berth.bench.load.KwokScaleBenchmark
 * </pre>
 *
 * <p>The control plane is set for this size in both runs ({@link ControlPlaneScale}), not left at
 * defaults made for a few Jobs: kube-controller-manager's and kube-scheduler's API clients at
 * {@code controlPlaneQps} (burst twice that; defaults 20/30 and 50/100), {@code jobSyncs} Job
 * controller workers (default 5: at 5, on this loaded machine, the floor ran 2.7 pods a second, the
 * workers waiting on their requests in turn) and a Node grace period of {@code nodeGraceSeconds}
 * (default 50 s: KWOK renews a thousand Leases late when the machine is busy), and {@code
 * kwokWorkers} for KWOK's pod stages, Node stages and Node Leases (default 4 each: at 10,000 Jobs
 * bound pods waited minutes for KWOK to start them, holding their quota). KWOK's client has no rate
 * limit. Berth's own client is as the operator configures it.
 *
 * <p>System properties: {@code nodes} (1000, of 8 GPUs each), {@code jobs} (10000), {@code
 * runSeconds} (30), {@code mode} (both | berth | floor), {@code webhooks} (chart: the chart's
 * webhooks registered and served by the operator, as in {@link SchedulerLoadBenchmark}; off: none,
 * the configuration of the figures before 7 December), {@code controlPlaneQps} (200), {@code
 * jobSyncs} (50), {@code nodeGraceSeconds} (300), {@code kwokWorkers} (50), {@code operator.jvm}
 * ("-Xmx768m"), {@code berth.repo} ("."), {@code timeoutSeconds} (3600), {@code kind} (job: one-pod
 * Jobs; pod: the same pods bare, each queued by the pod integration, which needs the chart's
 * webhooks).
 *
 * <p>Every process it starts (etcd, kube-apiserver, the control plane, the operator) is its child
 * and is stopped when it ends, however it ends short of SIGKILL: a shutdown hook stops any that a
 * failure left behind.
 */
public final class KwokScaleBenchmark {
  static final String GPU = "nvidia.com/gpu";
  static final String FLAVOR = "h100";
  static final String MODEL_LABEL = "nvidia.com/gpu.product";
  static final int GPUS_PER_NODE = 8;
  static final int CLUSTER_QUEUES = 10;
  static final int COHORTS = 2;
  private static final int PROGRESS_SECONDS = 30;

  private KwokScaleBenchmark() {}

  public static void main(String[] args) throws Exception {
    int nodes = Integer.getInteger("nodes", 1000);
    int jobs = Integer.getInteger("jobs", 10_000);
    int runSeconds = Integer.getInteger("runSeconds", 30);
    String mode = System.getProperty("mode", "both");
    boolean webhooks =
        switch (System.getProperty("webhooks", "chart")) {
          case "chart" -> true;
          case "off" -> false;
          default ->
              throw new IllegalArgumentException(
                  "webhooks: chart or off, not \"" + System.getProperty("webhooks") + "\"");
        };
    boolean pods =
        switch (System.getProperty("kind", "job")) {
          case "job" -> false;
          case "pod" -> true;
          default -> throw new IllegalArgumentException("kind: job or pod");
        };
    if (pods && !webhooks && !mode.equals("floor")) {
      // A bare Pod is queued only through the pod integration's mutating webhook (its gate).
      throw new IllegalArgumentException("kind=pod needs webhooks=chart");
    }
    long timeout = Long.getLong("timeoutSeconds", 3600);
    Path repo = Path.of(System.getProperty("berth.repo", "."));
    String jvm = System.getProperty("operator.jvm", "-Xmx768m");
    int qps = Integer.getInteger("controlPlaneQps", 200);
    ControlPlaneScale rate =
        new ControlPlaneScale(
            qps,
            2 * qps,
            Integer.getInteger("jobSyncs", 50),
            Duration.ofSeconds(Long.getLong("nodeGraceSeconds", 300)),
            Integer.getInteger("kwokWorkers", 50));
    Runtime.getRuntime().addShutdownHook(new Thread(KwokScaleBenchmark::stopChildren));
    Path dir = Files.createTempDirectory("berth-kwok-scale-");
    System.out.printf(
        Locale.ROOT,
        "[scale] %d KWOK nodes x %d GPUs, %d %s (1/2/4/8 GPUs, %d s"
            + " each) in %d ClusterQueues over %d cohorts; controller-manager and scheduler"
            + " clients at %d QPS, burst %d; %d Job controller workers; Node grace period %d s;"
            + " %d KWOK workers; Berth's webhooks %s; load %s; logs in %s%n",
        nodes,
        GPUS_PER_NODE,
        jobs,
        pods ? "bare Pods" : "Jobs",
        runSeconds,
        CLUSTER_QUEUES,
        COHORTS,
        rate.apiQps(),
        rate.apiBurst(),
        rate.concurrentJobSyncs(),
        rate.nodeMonitorGracePeriod().toSeconds(),
        rate.kwokWorkers(),
        webhooks ? "the chart's" : "off",
        LoadAverage.now(),
        dir);
    List<String> reports = new ArrayList<>();
    if (!mode.equals("floor")) {
      reports.add(
          run(
              true,
              webhooks,
              pods,
              nodes,
              jobs,
              runSeconds,
              rate,
              timeout,
              repo,
              jvm,
              dir.resolve("berth")));
    }
    if (!mode.equals("berth")) {
      reports.add(
          run(
              false,
              false,
              pods,
              nodes,
              jobs,
              runSeconds,
              rate,
              timeout,
              repo,
              jvm,
              dir.resolve("floor")));
    }
    String all = String.join("", reports);
    System.out.print(all);
    Files.writeString(dir.resolve("report.txt"), all);
    System.exit(0);
  }

  private static String run(
      boolean berth,
      boolean webhooks,
      boolean pods,
      int nodes,
      int jobs,
      int runSeconds,
      ControlPlaneScale rate,
      long timeout,
      Path repo,
      String jvm,
      Path dir)
      throws Exception {
    Files.createDirectories(dir);
    EmbeddedApiServer apiServer = EmbeddedApiServer.start();
    try {
      Path kubeconfig = BerthCrdsInstalled.kubeconfig(apiServer, dir);
      KubernetesClient admin = apiServer.client();
      long planeStart = System.nanoTime();
      try (LocalControlPlane plane =
          LocalControlPlane.start(
              admin,
              apiServer.kubeconfig(),
              dir.resolve("control-plane"),
              nodes(nodes),
              Optional.of(Duration.ofSeconds(runSeconds)),
              false,
              Optional.of(rate))) {
        System.out.printf(
            Locale.ROOT,
            "[scale] %s: %d nodes Ready in %.0f s%n",
            berth ? "berth" : "floor",
            nodes,
            (System.nanoTime() - planeStart) / 1e9);
        queues(admin, nodes);
        if (!berth) {
          return measure(admin, null, jobs, false, pods, timeout, dir);
        }
        // As the chart installs it: its webhooks registered, served by the operator, on every
        // Job create and update (-Dwebhooks=off: none, the configuration before 7 December).
        Map<String, String> env =
            webhooks ? ChartWebhooks.register(admin, OperatorJvm.freePort()) : Map.of();
        try (SupervisedOperator operator =
            SupervisedOperator.start(
                repo.resolve("operator/target/berth-operator.jar"), kubeconfig, dir, jvm, env)) {
          return measure(admin, operator, jobs, true, pods, timeout, dir);
        }
      }
    } finally {
      apiServer.close();
    }
  }

  private static String measure(
      KubernetesClient admin,
      SupervisedOperator operator,
      int jobs,
      boolean berth,
      boolean pods,
      long timeout,
      Path dir)
      throws Exception {
    // The operator's CPU is billed from its process start (start-up included) to its last Event
    // and usage record, as in SchedulerLoadBenchmark: start-up and the billing after the last
    // finish are part of what a run costs.
    double cpuAtReady = operator == null ? 0 : operator.cpuSeconds();
    try (ScaleRunner runner = new ScaleRunner(admin, jobs, CLUSTER_QUEUES, berth, pods)) {
      runner.watch();
      ApiRequests before = ApiRequests.scrape(admin);
      WebhookCalls calls0 = WebhookCalls.scrape(admin);
      Billing billedBefore = berth ? Billing.now(admin, runner) : null;
      double cpuAtFirstCreate = operator == null ? 0 : operator.cpuSeconds();
      boolean done;
      try (Progress progress = Progress.every(PROGRESS_SECONDS, admin, runner, operator, before)) {
        runner.submit();
        done = runner.awaitComplete(timeout, TimeUnit.SECONDS);
      }
      ApiRequests after = ApiRequests.scrape(admin);
      double cpuAtLastFinish = operator == null ? 0 : operator.cpuSeconds();
      LastWrite last =
          berth && done
              ? LastWrite.await(admin, runner, operator, billedBefore, after, 600)
              : LastWrite.NOT_AWAITED;
      double cpuTotal = operator == null ? 0 : operator.cpuSeconds();
      Map<String, Long> requests = after.since(before);
      long total = requests.values().stream().mapToLong(Long::longValue).sum();
      long work = ApiRequests.withoutHeartbeats(requests);
      StringBuilder out = new StringBuilder();
      out.append(
          String.format(
              Locale.ROOT,
              "%n[scale] %s%s: %d %s; load %s%n",
              berth ? "berth" : "floor (no Berth: straight to the scheduler)",
              done ? "" : " (TIMED OUT: figures are for what finished)",
              jobs,
              pods ? "bare Pods" : "Jobs",
              LoadAverage.now()));
      out.append(
          String.format(
              Locale.ROOT, "  submitted all in      %8.1f s%n", runner.submittedSeconds()));
      out.append(
          String.format(
              Locale.ROOT,
              "  all pods Running at   %8.1f s  (%d of %d Jobs)%n",
              runner.allRunningSeconds(),
              runner.running(),
              jobs));
      out.append(
          String.format(
              Locale.ROOT,
              "  all Jobs Complete at  %8.1f s  (%d of %d)%n",
              runner.allCompleteSeconds(),
              runner.complete(),
              jobs));
      out.append(
          String.format(
              Locale.ROOT,
              "  API requests          %8d  (%.1f per Job); without Node and Lease heartbeats"
                  + " %d (%.1f per Job)%n",
              total,
              total / (double) jobs,
              work,
              work / (double) jobs));
      if (berth) {
        out.append(
            String.format(
                Locale.ROOT,
                "  admissions            %8d  (%.1f per s, first to"
                    + " last); API requests per admission %.1f, without heartbeats %.1f%n",
                runner.admissions(),
                runner.admissionsPerSecond(),
                total / (double) Math.max(1, runner.admissions()),
                work / (double) Math.max(1, runner.admissions())));
        out.append(
            String.format(
                Locale.ROOT,
                "  operator              peak RSS %.0f MiB, CPU %.1f s from its start to the last"
                    + " Event and usage record written (start-up to ready %.1f s, ready to the"
                    + " first create %.1f s, the run to the last finish %.1f s, after it %.1f s),"
                    + " restarted %d times (it exits when it loses its Lease)%n",
                operator.peakRssMiB(),
                cpuTotal,
                cpuAtReady,
                cpuAtFirstCreate - cpuAtReady,
                cpuAtLastFinish - cpuAtFirstCreate,
                cpuTotal - cpuAtLastFinish,
                operator.restarts()));
        out.append("  ")
            .append(
                done ? last.report() : "not all Jobs complete: the last write not" + " awaited\n");
        out.append("  webhook calls by the API server (mean time as it measured them):\n")
            .append(WebhookCalls.scrape(admin).since(calls0));
      }
      requests.entrySet().stream()
          .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
          .limit(16)
          .forEach(
              e ->
                  out.append(
                      String.format(Locale.ROOT, "    %-40s %8d%n", e.getKey(), e.getValue())));
      Files.writeString(dir.resolve("report.txt"), out);
      return out.toString();
    }
  }

  /**
   * Stops, SIGTERM then SIGKILL, every process this JVM started that is still running: after a
   * normal end there are none, after a failure or an interrupt they would otherwise outlive it.
   */
  private static void stopChildren() {
    List<ProcessHandle> left = ProcessHandle.current().descendants().toList();
    if (left.isEmpty()) {
      return;
    }
    System.err.println("[scale] stopping " + left.size() + " processes left running");
    left.forEach(ProcessHandle::destroy);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (ProcessHandle p : left) {
      try {
        p.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (Exception e) {
        p.destroyForcibly();
      }
    }
  }

  /** Nodes of 8 GPUs in racks of 16, labelled with the GPU model the flavor selects. */
  static List<Node> nodes(int count) {
    List<Node> nodes = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      nodes.add(
          KwokNodes.node(
              String.format(Locale.ROOT, "gpu-%04d", i),
              Map.of(
                  MODEL_LABEL,
                  "NVIDIA-H100-80GB-HBM3",
                  "topology.berth.dev/rack",
                  "rack-" + i / 16),
              List.of(),
              Map.of(GPU, Integer.toString(GPUS_PER_NODE))));
    }
    return nodes;
  }

  /**
   * One flavor on every node; ClusterQueues with an equal share of GPUs and cpu, borrowing within
   * their cohort; a namespace and a LocalQueue "jobs" for each.
   */
  static void queues(KubernetesClient admin, int nodes) {
    // The operator's own namespace, for its Lease.
    admin
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName("berth-system").endMetadata().build())
        .create();
    ResourceFlavor flavor = new ResourceFlavor();
    flavor.getMetadata().setName(FLAVOR);
    ResourceFlavorSpec spec = new ResourceFlavorSpec();
    spec.nodeLabels = Map.of(MODEL_LABEL, "NVIDIA-H100-80GB-HBM3");
    flavor.setSpec(spec);
    admin.resource(flavor).create();
    long gpus = (long) nodes * GPUS_PER_NODE / CLUSTER_QUEUES;
    long cpus = (long) nodes * 96 / CLUSTER_QUEUES;
    for (int q = 0; q < CLUSTER_QUEUES; q++) {
      String name = ScaleRunner.queue(q);
      admin
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
          .create();
      ClusterQueue cq = new ClusterQueue();
      cq.getMetadata().setName(name);
      ClusterQueueSpec cqSpec = new ClusterQueueSpec();
      cqSpec.cohortName = "cohort-" + q % COHORTS;
      cqSpec.namespaceSelector = new LabelSelector();
      cqSpec.resourceGroups =
          List.of(
              new ResourceGroup(
                  List.of("cpu", GPU),
                  List.of(
                      new FlavorQuotas(
                          FLAVOR,
                          List.of(
                              new ResourceQuota("cpu", Long.toString(cpus)),
                              new ResourceQuota(GPU, Long.toString(gpus)))))));
      cq.setSpec(cqSpec);
      admin.resource(cq).create();
      LocalQueue lq = new LocalQueue();
      lq.getMetadata().setName("jobs");
      lq.getMetadata().setNamespace(name);
      LocalQueueSpec lqSpec = new LocalQueueSpec();
      lqSpec.clusterQueue = name;
      lq.setSpec(lqSpec);
      admin.resource(lq).create();
    }
  }
}
