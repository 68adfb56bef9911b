package dev.berth.bench.load;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.api.v1beta1.ClusterQueueSpec;
import dev.berth.api.v1beta1.FlavorQuotas;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.LocalQueueSpec;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.ResourceFlavorSpec;
import dev.berth.api.v1beta1.ResourceGroup;
import dev.berth.api.v1beta1.ResourceQuota;
import dev.berth.bench.load.SchedulerLoad.WorkloadClass;
import dev.berth.operator.local.EmbeddedApiServer;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * Kueue's scheduler-performance "baseline" load, end to end: a real kube-apiserver and etcd, the
 * operator in a JVM of its own, and {@link LoadRunner} playing Kueue's runner (creating the
 * Workloads at the load's rates, finishing each {@code runtime} after its admission). Prints wall
 * time against the quota-bound ideal, time to admission per class, preemptions, the API server's
 * request counts by verb and resource (each also per admitted workload and per admission cycle, the
 * cycles from the operator's {@code berth_admission_cycle_duration_seconds_count}), the operator's
 * peak RSS and CPU seconds, and the load average the run saw.
 *
 * <pre>
 * ./mvnw -B -o -q -Pbench -DskipTests package -pl benchmarks -am
 * java -Dworkloads=3000 -cp benchmarks/target/benchmarks.jar \
 *     dev.berth.bench.load.SchedulerLoadBenchmark
 * </pre>
 *
 * <p>System properties: {@code load} ("baseline", the default, or "large-scale": Kueue's 10 cohorts
 * × 100 ClusterQueues with 50 Workloads each), {@code workloads} (default 15000 for the baseline,
 * scaled per ClusterQueue; 50000 for large-scale, scaled by the number of ClusterQueues), {@code
 * operator.jvm} (default: the chart's jvmOptions under its 1 GiB limit, {@code
 * OperatorJvm.CHART_DEFAULTS}),
 * {@code operator.env} (extra BERTH_* settings, "K=V,K=V"), {@code berth.repo} (where
 * operator/target/berth-operator.jar is; default "."), {@code timeoutSeconds} (default 1800),
 * {@code warmup} (default 0: a first round of that many Workloads, run and billed on the same
 * operator before the measured one, so that the figures are those of an operator past its JIT
 * warm-up).
 */
public final class SchedulerLoadBenchmark {
  static final String FLAVOR = "rf";

  /** The operator's count of preemptions it decided (each victim once, when first asked for). */
  private static final String PREEMPTIONS_DECIDED = "berth_preempted_workloads_total";

  private SchedulerLoadBenchmark() {}

  public static void main(String[] args) throws Exception {
    String name = System.getProperty("load", "baseline");
    SchedulerLoad load =
        SchedulerLoad.named(
            name, Integer.getInteger("workloads", name.equals("baseline") ? 15_000 : 50_000));
    Path repo = Path.of(System.getProperty("berth.repo", "."));
    Path jar = repo.resolve("operator/target/berth-operator.jar");
    String jvm = System.getProperty("operator.jvm", OperatorJvm.CHART_DEFAULTS);
    Map<String, String> env = parseEnv(System.getProperty("operator.env", ""));
    long timeout = Long.getLong("timeoutSeconds", 1800);
    int warmup = Integer.getInteger("warmup", 0);
    Path dir = Files.createTempDirectory("berth-load-");
    System.out.printf(
        Locale.ROOT,
        "[load] %s: %d workloads in %d ClusterQueues (%d cohorts),"
            + " ideal %.1f s; operator %s %s; logs in %s%n",
        load.name(),
        load.workloads(),
        load.clusterQueues(),
        load.cohorts(),
        load.idealSeconds(),
        jvm,
        env,
        dir);

    EmbeddedApiServer apiServer = EmbeddedApiServer.start();
    try {
      Path kubeconfig = BerthCrdsInstalled.kubeconfig(apiServer, dir);
      KubernetesClient admin = apiServer.client();
      queues(admin, load);
      try (OperatorJvm operator = startReady(jar, kubeconfig, dir, jvm, env);
          LoadRunner runner = new LoadRunner(admin, load)) {
        if (warmup > 0) {
          warmUp(admin, operator, SchedulerLoad.named(name, warmup), timeout);
        }
        double cpuAtStart = operator.cpuSeconds();
        double cycles0 = operator.metric("berth_admission_cycle_duration_seconds_count");
        double decided0 = Math.max(0, operator.metric(PREEMPTIONS_DECIDED));
        Writers writers0 = Writers.read(operator);
        runner.watch();
        Billing billedBefore = Billing.now(admin, runner);
        ApiRequests before = ApiRequests.scrape(admin);
        LoadSampler loadAverage = LoadSampler.every(5);
        runner.create();
        boolean done = runner.awaitFinished(timeout, TimeUnit.SECONDS);
        ApiRequests after = ApiRequests.scrape(admin);
        double cycles = operator.metric("berth_admission_cycle_duration_seconds_count") - cycles0;
        double decided = Math.max(0, operator.metric(PREEMPTIONS_DECIDED)) - decided0;
        Writers writers = Writers.read(operator).since(writers0);
        loadAverage.close();
        String report =
            report(
                    load,
                    runner,
                    operator,
                    cpuAtStart,
                    after.since(before),
                    done,
                    cycles,
                    decided,
                    writers)
                + loadAverage.summary()
                + "\n";
        if (done) {
          report +=
              Billing.awaitComplete(admin, runner, runner.finished(), billedBefore, after, 600);
        }
        System.out.print(report);
        Files.writeString(dir.resolve("report.txt"), report);
      }
    } finally {
      apiServer.close();
    }
    System.exit(0);
  }

  /**
   * A first round of {@code warm}'s Workloads on the same queues and operator, run to the end and
   * billed, before the measured round: the operator's JIT compilation and class loading are then
   * behind it, as in an operator that has been running for a while.
   */
  private static void warmUp(
      KubernetesClient admin, OperatorJvm operator, SchedulerLoad warm, long timeout)
      throws Exception {
    double cpu0 = operator.cpuSeconds();
    try (LoadRunner round = new LoadRunner(admin, warm, "warm-")) {
      round.watch();
      Billing base = Billing.now(admin, round);
      round.create();
      if (!round.awaitFinished(timeout, TimeUnit.SECONDS)) {
        throw new IllegalStateException(
            "warm-up: " + round.finished() + " of " + warm.workloads() + " finished in time");
      }
      String billing =
          Billing.awaitComplete(
              admin, round, round.finished(), base, ApiRequests.scrape(admin), timeout);
      System.out.printf(
          Locale.ROOT,
          "[load] warm-up round: %d workloads finished in %.1f s, operator CPU %.1f s; %s",
          warm.workloads(),
          round.wallSeconds(),
          operator.cpuSeconds() - cpu0,
          billing);
    }
  }

  /**
   * Starts the operator and waits for /readyz. On a machine this loaded a start can time out
   * connecting to the API server and exit; it is started again, as the kubelet would, 3 times.
   */
  static OperatorJvm startReady(
      Path jar, Path kubeconfig, Path dir, String jvm, Map<String, String> env) throws Exception {
    for (int attempt = 1; ; attempt++) {
      OperatorJvm operator =
          OperatorJvm.start(jar, kubeconfig, dir.resolve("operator-" + attempt + ".log"), jvm, env);
      try {
        Awaitility.await("operator ready (log " + operator.log() + ")")
            .atMost(Duration.ofMinutes(5))
            .pollInterval(Duration.ofMillis(500))
            .until(() -> !operator.alive() || operator.ready());
      } catch (RuntimeException e) {
        operator.close();
        throw e;
      }
      if (operator.alive()) {
        return operator;
      }
      operator.close();
      if (attempt == 3) {
        throw new IllegalStateException(
            "the operator exited 3 times before it was ready; see " + operator.log());
      }
      System.out.printf(
          "[load] the operator exited before it was ready (%s); starting it" + " again%n",
          operator.log());
    }
  }

  static Map<String, String> parseEnv(String spec) {
    Map<String, String> env = new java.util.LinkedHashMap<>();
    for (String pair : spec.split(",")) {
      if (pair.isBlank()) {
        continue;
      }
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("operator.env: \"" + pair + "\" is not KEY=VALUE");
      }
      env.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
    }
    return env;
  }

  /** The flavor, and per ClusterQueue a namespace and a LocalQueue of the same name. */
  static void queues(KubernetesClient admin, SchedulerLoad load) {
    admin
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName("berth-system").endMetadata().build())
        .create();
    ResourceFlavor flavor = new ResourceFlavor();
    flavor.getMetadata().setName(FLAVOR);
    flavor.setSpec(new ResourceFlavorSpec());
    admin.resource(flavor).create();
    for (int c = 0; c < load.cohorts(); c++) {
      for (int q = 0; q < load.queuesPerCohort(); q++) {
        String name = load.clusterQueueName(c, q);
        ClusterQueue cq = new ClusterQueue();
        cq.getMetadata().setName(name);
        ClusterQueueSpec spec = new ClusterQueueSpec();
        spec.namespaceSelector = new LabelSelector();
        spec.cohortName = load.cohortName(c);
        ResourceQuota cpu = new ResourceQuota("cpu", Integer.toString(load.nominalCpu()));
        cpu.borrowingLimit = new Quantity(Integer.toString(load.borrowingLimitCpu()));
        spec.resourceGroups =
            List.of(
                new ResourceGroup(List.of("cpu"), List.of(new FlavorQuotas(FLAVOR, List.of(cpu)))));
        spec.preemption = new ClusterQueuePreemption();
        spec.preemption.withinClusterQueue =
            ClusterQueuePreemption.WithinClusterQueue.LowerPriority;
        spec.preemption.reclaimWithinCohort = ClusterQueuePreemption.ReclaimWithinCohort.Any;
        cq.setSpec(spec);
        admin.resource(cq).create();
        namespaceWithLocalQueue(admin, name);
      }
    }
  }

  /** Namespace {@code name} and in it LocalQueue {@code name}, of ClusterQueue {@code name}. */
  static void namespaceWithLocalQueue(KubernetesClient admin, String name) {
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
    LocalQueue lq = new LocalQueue();
    lq.getMetadata().setNamespace(name);
    lq.getMetadata().setName(name);
    lq.setSpec(new LocalQueueSpec(name));
    admin.resource(lq).create();
  }

  private static String report(
      SchedulerLoad load,
      LoadRunner runner,
      OperatorJvm operator,
      double cpuAtStart,
      Map<String, Long> requests,
      boolean done,
      double cycles,
      double preemptionsDecided,
      Writers writers)
      throws Exception {
    double wall = runner.wallSeconds();
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "%n[load] %s, %d workloads: %s%n",
            load.name(),
            load.workloads(),
            done ? "all finished" : "TIMED OUT with " + runner.finished() + " finished"));
    out.append(
        String.format(
            Locale.ROOT,
            "wall %.1f s, ideal %.1f s, wall/ideal %.2f%n",
            wall,
            load.idealSeconds(),
            wall / load.idealSeconds()));
    out.append("time to admission (s): class priority admitted mean p50 p90 max\n");
    for (WorkloadClass wc : load.classes()) {
      List<Double> waits = new ArrayList<>();
      for (LoadRunner.Life life : runner.lives().values()) {
        if (life.workloadClass == wc && life.firstAdmitted != 0) {
          waits.add((life.firstAdmitted - life.created) / 1e9);
        }
      }
      waits.sort(null);
      double mean = waits.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
      out.append(
          String.format(
              Locale.ROOT,
              "  %-6s %3d %6d %7.1f %7.1f %7.1f %7.1f%n",
              wc.name(),
              wc.priority(),
              waits.size(),
              mean,
              percentile(waits, 50),
              percentile(waits, 90),
              percentile(waits, 100)));
    }
    out.append(
        String.format(
            Locale.ROOT,
            "preemptions %d (evictions %d); preemptions the operator decided %.0f"
                + " (berth_preempted_workloads_total: a decided one whose victim finished or"
                + " changed before the eviction was written is not carried out, and the next"
                + " cycle decides again)%n",
            runner.preemptions(),
            runner.evictions(),
            preemptionsDecided));
    out.append(writers.summary(wall));
    out.append(
        String.format(
            Locale.ROOT,
            "operator: peak RSS %.0f MiB, CPU %.1f s (user+sys"
                + " during the run; %.1f s including start-up)%n",
            operator.peakRssMiB(),
            operator.cpuSeconds() - cpuAtStart,
            operator.cpuSeconds()));
    out.append(
        String.format(
            Locale.ROOT,
            "the runner's own requests: %d Workload creates, %d"
                + " Workload status writes (finish, eviction release)%n",
            runner.creates(),
            runner.statusWrites()));
    long admitted = runner.lives().values().stream().filter(l -> l.firstAdmitted != 0).count();
    out.append(
        "API requests during the run (apiserver_request_total), by verb and resource:"
            + " count, per admitted workload, per cycle\n");
    long writes = 0;
    long statusWrites = 0;
    for (var e : requests.entrySet()) {
      out.append(
          String.format(
              Locale.ROOT,
              "  %-50s %8d %8.2f %8.3f%n",
              e.getKey(),
              e.getValue(),
              e.getValue() / (double) Math.max(1, admitted),
              cycles > 0 ? e.getValue() / cycles : Double.NaN));
      String verb = e.getKey().substring(0, e.getKey().indexOf(' '));
      if (List.of("POST", "PUT", "PATCH", "DELETE").contains(verb)) {
        writes += e.getValue();
        if (e.getKey().endsWith("/status")) {
          statusWrites += e.getValue();
        }
      }
    }
    long operatorStatusWrites = statusWrites - runner.statusWrites();
    out.append(
        String.format(
            Locale.ROOT,
            "status writes by the operator (Workload, ClusterQueue, LocalQueue, Cohort): %d;"
                + " %.2f per admitted workload (%d admitted); %.0f cycles, %.2f per cycle%n",
            operatorStatusWrites,
            operatorStatusWrites / (double) Math.max(1, admitted),
            admitted,
            cycles,
            cycles > 0 ? operatorStatusWrites / cycles : Double.NaN));
    long operatorWrites = writes - runner.creates() - runner.statusWrites();
    out.append(
        String.format(
            Locale.ROOT,
            "writes: %d in all, %d not the runner's (%.2f per" + " workload)%n",
            writes,
            operatorWrites,
            operatorWrites / (double) load.workloads()));
    if (!runner.createFailures().isEmpty()) {
      out.append(runner.createFailures().size())
          .append(" creates failed, first: ")
          .append(runner.createFailures().get(0))
          .append('\n');
    }
    return out.toString();
  }

  static double percentile(List<Double> sorted, int p) {
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
  }

  /**
   * The operator's writers over the run, from its {@code berth_write_pool_*} meters: how busy they
   * were sending, how long a write took from send to answer, and how long the client's own rate bound
   * held them.
   */
  record Writers(double writers, double sent, double sendingSeconds, double throttledSeconds) {
    static Writers read(OperatorJvm operator) {
      return new Writers(
          operator.metric("berth_write_pool_writers"),
          operator.metric("berth_write_pool_sent_writes_total"),
          operator.metric("berth_write_pool_sending_seconds_total"),
          operator.metric("berth_write_pool_throttled_seconds_total"));
    }

    Writers since(Writers before) {
      return new Writers(
          writers,
          sent - before.sent,
          sendingSeconds - before.sendingSeconds,
          throttledSeconds - before.throttledSeconds);
    }

    String summary(double wallSeconds) {
      if (writers <= 0 || sent < 0) {
        return "writers: the operator has no berth_write_pool_* meters (an older build)\n";
      }
      return String.format(
          Locale.ROOT,
          "writers: %.0f sent %.0f writes, busy sending %.0f %% of the run (%.1f s of %.0f"
              + " writers x %.1f s), %.1f ms from send to answer on average; waited %.1f s for the client"
              + " rate bound%n",
          writers,
          sent,
          100 * sendingSeconds / (writers * wallSeconds),
          sendingSeconds,
          writers,
          wallSeconds,
          sent > 0 ? 1000 * sendingSeconds / sent : Double.NaN,
          throttledSeconds);
    }
  }
}
