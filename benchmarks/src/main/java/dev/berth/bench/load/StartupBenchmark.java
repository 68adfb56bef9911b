package dev.berth.bench.load;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueueSpec;
import dev.berth.api.v1beta1.FlavorQuotas;
import dev.berth.api.v1beta1.ResourceGroup;
import dev.berth.api.v1beta1.ResourceQuota;
import dev.berth.api.v1beta1.Workload;
import dev.berth.bench.load.SchedulerLoad.WorkloadClass;
import dev.berth.local.EmbeddedApiServer;
import dev.berth.operator.admission.StatusConditions;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Start-up with a cluster already full (issue 20): {@code workloads} pending Workloads in the
 * ClusterQueues of Kueue's large-scale load (10 cohorts; 50,000 Workloads give 1,000 ClusterQueues,
 * 10,000 give 200) are created first, then the operator is started in a JVM of its own while more
 * Workloads keep arriving. Prints the time from the operator's start to its "rebuilt state" log
 * line, to the first admission, to the first admission of a Workload created after it started, and
 * to the first ClusterQueue with Active=True; the operator's peak RSS and CPU seconds then; and the
 * API server's requests by verb and resource in that time (LIST among them).
 *
 * <pre>
 * ./mvnw -B -o -q -Pbench -DskipTests package -pl benchmarks -am
 * java -Dworkloads=50000 -cp benchmarks/target/benchmarks.jar dev.berth.bench.load.StartupBenchmark
 * </pre>
 *
 * <p>System properties: {@code workloads} (default 50000), {@code arrivalsPerSecond} (Workloads
 * created while the operator starts, default 20), {@code operator.jvm} (default "-Xmx768m"), {@code
 * operator.env} ("K=V,K=V"), {@code berth.repo} (where operator/target/berth-operator.jar is;
 * default "."), {@code timeoutSeconds} (default 600, from the operator's start).
 */
public final class StartupBenchmark {
  private StartupBenchmark() {}

  public static void main(String[] args) throws Exception {
    SchedulerLoad load = SchedulerLoad.largeScale(Integer.getInteger("workloads", 50_000));
    int arrivals = Integer.getInteger("arrivalsPerSecond", 20);
    Path jar =
        Path.of(System.getProperty("berth.repo", "."))
            .resolve("operator/target/berth-operator.jar");
    String jvm = System.getProperty("operator.jvm", "-Xmx768m");
    Map<String, String> env =
        SchedulerLoadBenchmark.parseEnv(System.getProperty("operator.env", ""));
    long timeout = Long.getLong("timeoutSeconds", 600);
    Path dir = Files.createTempDirectory("berth-startup-");
    System.out.printf(
        Locale.ROOT,
        "[startup] %d Workloads in %d ClusterQueues (%d cohorts), %d/s more while it starts;"
            + " operator %s (%s) %s; load average %s; logs in %s%n",
        load.workloads(),
        load.clusterQueues(),
        load.cohorts(),
        arrivals,
        jar,
        jvm,
        env,
        LoadAverage.now(),
        dir);
    EmbeddedApiServer apiServer = EmbeddedApiServer.start();
    try {
      Path kubeconfig = BerthCrdsInstalled.kubeconfig(apiServer, dir);
      KubernetesClient admin = apiServer.client();
      long t = System.nanoTime();
      SchedulerLoadBenchmark.queues(admin, load);
      lateQueue(admin, arrivals);
      System.out.printf(
          Locale.ROOT,
          "[startup] %d ClusterQueues, LocalQueues and namespaces in %.1f s%n",
          load.clusterQueues(),
          (System.nanoTime() - t) / 1e9);
      t = System.nanoTime();
      precreate(admin, load);
      System.out.printf(
          Locale.ROOT,
          "[startup] %d Workloads created in %.1f s; load average %s%n",
          load.workloads(),
          (System.nanoTime() - t) / 1e9,
          LoadAverage.now());
      run(admin, load, jar, kubeconfig, dir, jvm, env, arrivals, timeout);
    } finally {
      apiServer.close();
    }
    System.exit(0);
  }

  private static void run(
      KubernetesClient admin,
      SchedulerLoad load,
      Path jar,
      Path kubeconfig,
      Path dir,
      String jvm,
      Map<String, String> env,
      int arrivals,
      long timeout)
      throws Exception {
    Milestones seen = new Milestones();
    String workloadVersion =
        admin
            .resources(Workload.class)
            .inAnyNamespace()
            .list(new ListOptionsBuilder().withLimit(1L).build())
            .getMetadata()
            .getResourceVersion();
    String queueVersion =
        admin
            .resources(ClusterQueue.class)
            .list(new ListOptionsBuilder().withLimit(1L).build())
            .getMetadata()
            .getResourceVersion();
    ApiRequests before = ApiRequests.scrape(admin);
    ScheduledExecutorService arriving = Executors.newSingleThreadScheduledExecutor();
    try (Watch workloads =
            admin
                .resources(Workload.class)
                .inAnyNamespace()
                .watch(
                    new ListOptionsBuilder().withResourceVersion(workloadVersion).build(),
                    seen.workloads());
        Watch queues =
            admin
                .resources(ClusterQueue.class)
                .watch(
                    new ListOptionsBuilder().withResourceVersion(queueVersion).build(),
                    seen.queues())) {
      seen.start();
      OperatorJvm operator =
          OperatorJvm.start(jar, kubeconfig, dir.resolve("operator-1.log"), jvm, env);
      AtomicInteger late = new AtomicInteger();
      WorkloadClass small = load.classes().get(0);
      arriving.scheduleAtFixedRate(
          () -> {
            int i = late.getAndIncrement();
            try {
              admin.resource(LoadRunner.workload(LATE, small, "late-" + i)).create();
            } catch (RuntimeException e) {
              late.decrementAndGet();
            }
          },
          0,
          1_000_000 / Math.max(1, arrivals),
          TimeUnit.MICROSECONDS);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeout);
      double cpu = 0;
      double rss = 0;
      int starts = 1;
      while (System.nanoTime() < deadline
          && (seen.firstLateAdmission.get() == 0 || seen.firstActive.get() == 0)) {
        seen.rebuilt(operator.log());
        if (!operator.alive() && starts < 5) {
          // Exited (on this machine: an informer's first list timed out): started again, as the
          // kubelet would; the figures stay counted from the first start.
          seen.exited(false);
          operator.close();
          starts++;
          operator =
              OperatorJvm.start(
                  jar, kubeconfig, dir.resolve("operator-" + starts + ".log"), jvm, env);
          continue;
        }
        try {
          // The last reading before it exits, if it does (CPU of the current process only).
          cpu = operator.cpuSeconds();
          rss = Math.max(rss, operator.peakRssMiB());
        } catch (java.io.IOException gone) {
          // Exiting: the next round sees it.
        }
        TimeUnit.MILLISECONDS.sleep(200);
      }
      seen.rebuilt(operator.log());
      System.out.printf("[startup] operator starts: %d (logs operator-N.log)%n", starts);
      operator.close();
      arriving.shutdownNow();
      Map<String, Long> requests = ApiRequests.scrape(admin).since(before);
      String report = seen.report(cpu, rss, late.get(), requests);
      System.out.print(report);
      Files.writeString(dir.resolve("report.txt"), report);
    } finally {
      arriving.shutdownNow();
    }
  }

  /**
   * Where the Workloads created after the start go: a ClusterQueue of its own, in no cohort, with
   * room for every one of them until the timeout. The pre-created Workloads ask for many times the
   * load's quota and none finishes here, so a late arrival in one of the load's queues could never
   * be admitted: what its admission measures is how soon the operator admits new work, not whether
   * quota comes free.
   */
  static final String LATE = "late-arrivals";

  private static void lateQueue(KubernetesClient admin, int arrivalsPerSecond) {
    ClusterQueue cq = new ClusterQueue();
    cq.getMetadata().setName(LATE);
    ClusterQueueSpec spec = new ClusterQueueSpec();
    spec.namespaceSelector = new LabelSelector();
    // 1 cpu each: room for 1,000 s of arrivals, more than the timeout's default.
    ResourceQuota cpu =
        new ResourceQuota("cpu", Integer.toString(Math.max(1, arrivalsPerSecond) * 1_000));
    spec.resourceGroups =
        List.of(
            new ResourceGroup(
                List.of("cpu"),
                List.of(new FlavorQuotas(SchedulerLoadBenchmark.FLAVOR, List.of(cpu)))));
    cq.setSpec(spec);
    admin.resource(cq).create();
    SchedulerLoadBenchmark.namespaceWithLocalQueue(admin, LATE);
  }

  private static List<String> queueNames(SchedulerLoad load) {
    List<String> names = new ArrayList<>();
    for (int c = 0; c < load.cohorts(); c++) {
      for (int q = 0; q < load.queuesPerCohort(); q++) {
        names.add(load.clusterQueueName(c, q));
      }
    }
    return names;
  }

  /** Every Workload of the load, pending, created by 16 threads. */
  private static void precreate(KubernetesClient admin, SchedulerLoad load) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(16);
    AtomicLong done = new AtomicLong();
    List<Future<?>> futures = new ArrayList<>();
    try {
      for (String queue : queueNames(load)) {
        futures.add(
            pool.submit(
                () -> {
                  for (WorkloadClass wc : load.classes()) {
                    for (int i = 0; i < wc.perQueue(); i++) {
                      createRetrying(admin, LoadRunner.workload(queue, wc, wc.name() + "-" + i));
                      if (done.incrementAndGet() % 5_000 == 0) {
                        System.out.printf("[startup] %d Workloads created%n", done.get());
                      }
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** A loaded API server answers 429 or times out now and then: the create is tried again. */
  private static void createRetrying(KubernetesClient admin, Workload wl) throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        admin.resource(wl).create();
        return;
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (e.getCode() == 409) {
          return; // created by the attempt whose reply was lost
        }
        if (attempt == 5) {
          throw e;
        }
        TimeUnit.MILLISECONDS.sleep(500L * attempt);
      }
    }
  }

  /** When each milestone was first seen, in nanoseconds since the operator's start (0: not yet). */
  private static final class Milestones {
    private volatile long started;
    private volatile LocalTime startedAt;
    private final AtomicLong firstAdmission = new AtomicLong();
    private final AtomicLong firstLateAdmission = new AtomicLong();
    private final AtomicLong firstActive = new AtomicLong();
    private final AtomicLong rebuilt = new AtomicLong();
    private final AtomicInteger admissions = new AtomicInteger();

    private volatile long exited;

    /** The last time a started operator exited by itself. */
    void exited(boolean alive) {
      if (!alive) {
        exited = since();
      }
    }

    void start() {
      startedAt = LocalTime.now();
      started = System.nanoTime();
    }

    private long since() {
      return Math.max(1, System.nanoTime() - started);
    }

    Watcher<Workload> workloads() {
      return new Watcher<>() {
        @Override
        public void eventReceived(Action action, Workload wl) {
          if (action == Action.MODIFIED && StatusConditions.hasQuotaReserved(wl)) {
            long at = since();
            admissions.incrementAndGet();
            firstAdmission.compareAndSet(0, at);
            if (wl.getMetadata().getName().startsWith("late-")) {
              firstLateAdmission.compareAndSet(0, at);
            }
          }
        }

        @Override
        public void onClose(WatcherException cause) {
          System.out.println("[startup] the Workload watch closed: " + cause);
        }
      };
    }

    Watcher<ClusterQueue> queues() {
      return new Watcher<>() {
        @Override
        public void eventReceived(Action action, ClusterQueue cq) {
          if (cq.getStatus() != null
              && StatusConditions.find(cq.getStatus().conditions, "Active")
                  .filter(c -> "True".equals(c.status))
                  .isPresent()) {
            firstActive.compareAndSet(0, since());
          }
        }

        @Override
        public void onClose(WatcherException cause) {
          System.out.println("[startup] the ClusterQueue watch closed: " + cause);
        }
      };
    }

    /** The operator logs "rebuilt state" with its wall-clock time (HH:mm:ss.SSS) first. */
    void rebuilt(Path log) {
      if (rebuilt.get() != 0 || !Files.exists(log)) {
        return;
      }
      try (var lines = Files.lines(log)) {
        lines
            .filter(l -> l.contains("rebuilt state"))
            .findFirst()
            .ifPresent(
                l -> {
                  try {
                    LocalTime at = LocalTime.parse(l.substring(0, l.indexOf(' ')));
                    rebuilt.compareAndSet(
                        0, Math.max(1, Duration.between(startedAt, at).toNanos()));
                  } catch (DateTimeParseException | StringIndexOutOfBoundsException e) {
                    rebuilt.compareAndSet(0, since());
                  }
                });
      } catch (java.io.IOException | java.io.UncheckedIOException e) {
        // Being written: read again on the next poll.
      }
    }

    String report(double cpu, double rss, int late, Map<String, Long> requests) {
      StringBuilder out = new StringBuilder();
      out.append(
          String.format(
              Locale.ROOT,
              "%n[startup] from the operator's start (%s):%n",
              exited == 0
                  ? "never exited"
                  : String.format(
                      Locale.ROOT,
                      "last exit by itself %.1f s after the first start",
                      exited / 1e9)));
      out.append(line("\"rebuilt state\" logged", rebuilt.get()));
      out.append(line("first admission", firstAdmission.get()));
      out.append(
          line("first admission of a Workload created after the start", firstLateAdmission.get()));
      out.append(line("first ClusterQueue Active=True", firstActive.get()));
      out.append(
          String.format(
              Locale.ROOT,
              "admissions seen %d; Workloads created meanwhile %d; load average %s%n",
              admissions.get(),
              late,
              LoadAverage.now()));
      out.append(
          String.format(
              Locale.ROOT,
              "operator: peak RSS %.0f MiB, CPU %.1f s (user+sys, at the last milestone)%n",
              rss,
              cpu));
      out.append("API requests in that time (apiserver_request_total), by verb and resource:\n");
      requests.forEach((k, v) -> out.append(String.format(Locale.ROOT, "  %-50s %8d%n", k, v)));
      return out.toString();
    }

    private static String line(String what, long nanos) {
      return nanos == 0
          ? String.format(Locale.ROOT, "  %-56s not seen%n", what)
          : String.format(Locale.ROOT, "  %-56s %7.1f s%n", what, nanos / 1e9);
    }
  }
}
