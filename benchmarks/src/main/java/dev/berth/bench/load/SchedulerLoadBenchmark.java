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
import dev.berth.local.EmbeddedApiServer;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * peak RSS, its CPU seconds from its start to its last Event and usage record ({@link LastWrite}),
 * the API server's calls to the webhooks, and the load average the run saw.
 *
 * <p>By default the operator runs as the chart installs it: the chart's webhook configurations
 * registered ({@link ChartWebhooks}) and served in the operator's JVM, so every Workload create and
 * status write goes through them. {@code -Dwebhooks=off} runs it as the figures before issue 42
 * were taken (BERTH_WEBHOOKS_ENABLED=false, none registered); {@code -Dwebhooks=both} runs the
 * chart's configuration, then that one, each on a fresh API server and operator, and prints them
 * side by side.
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
 * OperatorJvm.CHART_DEFAULTS}), {@code operator.env} (extra BERTH_* settings, "K=V,K=V"), {@code
 * webhooks} ("chart", the default; "off"; "both"), {@code berth.repo} (where
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
    List<Boolean> configurations =
        switch (System.getProperty("webhooks", "chart")) {
          case "chart" -> List.of(true);
          case "off" -> List.of(false);
          case "both" -> List.of(true, false);
          default ->
              throw new IllegalArgumentException(
                  "webhooks: chart, off or both, not \"" + System.getProperty("webhooks") + "\"");
        };
    Path dir = Files.createTempDirectory("berth-load-");
    System.out.printf(
        Locale.ROOT,
        "[load] %s: %d workloads in %d ClusterQueues (%d cohorts),"
            + " ideal %.1f s; operator %s %s; webhooks %s; load average %s; logs in %s%n",
        load.name(),
        load.workloads(),
        load.clusterQueues(),
        load.cohorts(),
        load.idealSeconds(),
        jvm,
        env,
        System.getProperty("webhooks", "chart"),
        LoadAverage.now(),
        dir);
    List<Run> runs = new ArrayList<>();
    for (boolean webhooks : configurations) {
      Path runDir = dir.resolve(webhooks ? "webhooks-chart" : "webhooks-off");
      Files.createDirectories(runDir);
      Run run = run(load, name, warmup, jar, jvm, env, timeout, webhooks, runDir);
      System.out.print(run.report());
      Files.writeString(runDir.resolve("report.txt"), run.report());
      runs.add(run);
    }
    if (runs.size() > 1) {
      String sideBySide = Run.sideBySide(runs);
      System.out.print(sideBySide);
      Files.writeString(dir.resolve("side-by-side.txt"), sideBySide);
    }
    System.exit(0);
  }

  /**
   * One run on a fresh API server and operator: with {@code webhooks}, the chart's webhook
   * configurations registered and served by the operator (the chart's defaults); without, the
   * operator with BERTH_WEBHOOKS_ENABLED=false and no webhook registered.
   */
  private static Run run(
      SchedulerLoad load,
      String name,
      int warmup,
      Path jar,
      String jvm,
      Map<String, String> env,
      long timeout,
      boolean webhooks,
      Path dir)
      throws Exception {
    EmbeddedApiServer apiServer = EmbeddedApiServer.start();
    try {
      Path kubeconfig = BerthCrdsInstalled.kubeconfig(apiServer, dir);
      KubernetesClient admin = apiServer.client();
      // The same queues in both configurations: created before any webhook is registered.
      queues(admin, load);
      Map<String, String> operatorEnv = new LinkedHashMap<>();
      if (webhooks) {
        operatorEnv.putAll(ChartWebhooks.register(admin, OperatorJvm.freePort()));
      }
      operatorEnv.putAll(env);
      try (OperatorJvm operator = startReady(jar, kubeconfig, dir, jvm, operatorEnv);
          LoadRunner runner = new LoadRunner(admin, load)) {
        double cpuReady = operator.cpuSeconds();
        if (webhooks) {
          awaitWebhooksServing(admin, load);
        }
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
        WebhookCalls calls0 = WebhookCalls.scrape(admin);
        LoadSampler loadAverage = LoadSampler.every(5);
        runner.create();
        boolean done = runner.awaitFinished(timeout, TimeUnit.SECONDS);
        double cpuAtLastFinish = operator.cpuSeconds();
        ApiRequests after = ApiRequests.scrape(admin);
        double cycles = operator.metric("berth_admission_cycle_duration_seconds_count") - cycles0;
        double decided = Math.max(0, operator.metric(PREEMPTIONS_DECIDED)) - decided0;
        Writers writers = Writers.read(operator).since(writers0);
        String report =
            (webhooks
                    ? "\n[load] webhooks: the chart's, registered and served by the operator"
                    : "\n[load] webhooks: off (BERTH_WEBHOOKS_ENABLED=false, none registered)")
                + report(load, runner, after.since(before), done, cycles, decided, writers);
        LastWrite last = LastWrite.NOT_AWAITED;
        if (done) {
          last = LastWrite.await(admin, runner, operator, billedBefore, after, 600);
          report += last.report();
        }
        // The operator's whole bill: from its start to its last Event and usage record.
        double cpuTotal = operator.cpuSeconds();
        loadAverage.close();
        report +=
            String.format(
                    Locale.ROOT,
                    "operator: peak RSS %.0f MiB; CPU %.1f s from its start to %s (user+sys):"
                        + " start-up to ready %.1f s, ready to the first create %.1f s (%s), the"
                        + " run to the last finish %.1f s, after it %.1f s%n",
                    operator.peakRssMiB(),
                    cpuTotal,
                    last.complete() ? "the last Event and usage record written" : "now",
                    cpuReady,
                    cpuAtStart - cpuReady,
                    (webhooks ? "the webhooks' first calls" : "")
                        + (webhooks && warmup > 0 ? ", " : "")
                        + (warmup > 0 ? "the warm-up round" : "")
                        + (!webhooks && warmup == 0 ? "idle" : ""),
                    cpuAtLastFinish - cpuAtStart,
                    cpuTotal - cpuAtLastFinish)
                + "webhook calls by the API server from the first create to the last write,"
                + " as it counted them:\n"
                + WebhookCalls.scrape(admin).since(calls0)
                + loadAverage.summary()
                + "\n";
        return new Run(
            webhooks,
            report,
            runner.wallSeconds(),
            cpuTotal,
            operator.peakRssMiB(),
            meanWait(runner),
            LoadAverage.now());
      }
    } finally {
      apiServer.close();
    }
  }

  /**
   * Until the API server calls the operator's webhooks and they answer: a dry-run Workload create
   * passes the mutating and validating Workload webhooks (failurePolicy Fail: it is refused while
   * the CA the operator wrote into the configurations has not reached the API server's webhook
   * client).
   */
  private static void awaitWebhooksServing(KubernetesClient admin, SchedulerLoad load) {
    String queue = load.clusterQueueName(0, 0);
    WebhookCalls before = WebhookCalls.scrape(admin);
    Awaitility.await("the chart's webhooks answer the API server")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(
            () -> {
              admin
                  .resource(LoadRunner.workload(queue, load.classes().get(0), "webhook-probe"))
                  .dryRun()
                  .create();
              return WebhookCalls.scrape(admin).callsSince(before) > 0;
            });
  }

  private static double meanWait(LoadRunner runner) {
    return runner.lives().values().stream()
        .filter(l -> l.firstAdmitted != 0)
        .mapToDouble(l -> (l.firstAdmitted - l.created) / 1e9)
        .average()
        .orElse(Double.NaN);
  }

  /** One configuration's run, and the figures compared side by side. */
  record Run(
      boolean webhooks,
      String report,
      double wallSeconds,
      double cpuSeconds,
      double peakRssMiB,
      double meanWaitSeconds,
      String loadAtEnd) {
    static String sideBySide(List<Run> runs) {
      StringBuilder out =
          new StringBuilder(
              "\n[load] side by side (one after the other on this machine):\n"
                  + "| webhooks | wall s | operator CPU s, start to last write | peak RSS MiB"
                  + " | mean time to admission s | load average at the end |\n"
                  + "|---|---|---|---|---|---|\n");
      for (Run r : runs) {
        out.append(
            String.format(
                Locale.ROOT,
                "| %s | %.1f | %.1f | %.0f | %.1f | %s |%n",
                r.webhooks ? "chart's" : "off",
                r.wallSeconds,
                r.cpuSeconds,
                r.peakRssMiB,
                r.meanWaitSeconds,
                r.loadAtEnd));
      }
      return out.toString();
    }
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
      LastWrite last =
          LastWrite.await(admin, round, operator, base, ApiRequests.scrape(admin), timeout);
      System.out.printf(
          Locale.ROOT,
          "[load] warm-up round: %d workloads finished in %.1f s, operator CPU %.1f s; %s",
          warm.workloads(),
          round.wallSeconds(),
          operator.cpuSeconds() - cpu0,
          last.report());
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
    Map<String, String> env = new LinkedHashMap<>();
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
      Map<String, Long> requests,
      boolean done,
      double cycles,
      double preemptionsDecided,
      Writers writers) {
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
   * were sending, how long a write took from send to answer, and how long the client's own rate
   * bound held them.
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
