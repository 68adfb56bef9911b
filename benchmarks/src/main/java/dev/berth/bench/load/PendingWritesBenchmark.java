package dev.berth.bench.load;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueueSpec;
import dev.berth.api.v1beta1.FlavorQuotas;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.ResourceFlavorSpec;
import dev.berth.api.v1beta1.ResourceGroup;
import dev.berth.api.v1beta1.ResourceQuota;
import dev.berth.api.v1beta1.Workload;
import dev.berth.local.EmbeddedApiServer;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Status writes for workloads that wait (issue 16, deliverable 1; Kueue users report write storms
 * for non-admitted workloads, kueue#8095): {@code pending} Workloads in 10 ClusterQueues whose
 * quota holds one workload each, with the operator in a JVM of its own. After every Workload is
 * created and the operator has had {@code settleSeconds} to write their first reasons, the API
 * server's own counts give the Workload status writes and Events per pending workload per minute
 * over {@code minutes}: in steady state, and (second window) while one workload per ClusterQueue
 * finishes every {@code churnSeconds}, so that every queue's positions move.
 *
 * <pre>
 * ./mvnw -B -o -q -Pbench -DskipTests package -pl benchmarks -am
 * java -Dpending=10000 -cp benchmarks/target/benchmarks.jar \
 *     dev.berth.bench.load.PendingWritesBenchmark
 * </pre>
 */
public final class PendingWritesBenchmark {
  private static final int QUEUES = 10;
  private static final String FLAVOR = "rf";

  private PendingWritesBenchmark() {}

  public static void main(String[] args) throws Exception {
    int pending = Integer.getInteger("pending", 10_000);
    int minutes = Integer.getInteger("minutes", 2);
    int settle = Integer.getInteger("settleSeconds", 60);
    int churn = Integer.getInteger("churnSeconds", 10);
    Path repo = Path.of(System.getProperty("berth.repo", "."));
    String jvm = System.getProperty("operator.jvm", "-Xmx768m");
    Path dir = Files.createTempDirectory("berth-pending-writes-");
    System.out.printf(
        Locale.ROOT,
        "[pending] %d pending Workloads in %d ClusterQueues; load %s;" + " logs in %s%n",
        pending,
        QUEUES,
        LoadAverage.now(),
        dir);
    EmbeddedApiServer apiServer = EmbeddedApiServer.start();
    try {
      Path kubeconfig = BerthCrdsInstalled.kubeconfig(apiServer, dir);
      KubernetesClient admin = apiServer.client();
      queues(admin);
      try (OperatorJvm operator =
          SchedulerLoadBenchmark.startReady(
              repo.resolve("operator/target/berth-operator.jar"), kubeconfig, dir, jvm, Map.of())) {
        long t0 = System.nanoTime();
        create(admin, pending);
        System.out.printf(
            Locale.ROOT,
            "[pending] created in %.0f s; settling %d s%n",
            (System.nanoTime() - t0) / 1e9,
            settle);
        Thread.sleep(Duration.ofSeconds(settle).toMillis()); // a measuring window, not a wait
        StringBuilder out = new StringBuilder();
        out.append(window(admin, "steady", pending, minutes, () -> {}));
        int[] finished = {0};
        out.append(
            window(
                admin,
                "churn (one finish per ClusterQueue every " + churn + " s)",
                pending,
                minutes,
                () -> finished[0] += finishOnePerQueue(admin, churn)));
        out.append(
            String.format(
                Locale.ROOT,
                "  operator peak RSS %.0f MiB, CPU %.1f s; %d"
                    + " finished during churn; load %s%n",
                operator.peakRssMiB(),
                operator.cpuSeconds(),
                finished[0],
                LoadAverage.now()));
        System.out.print(out);
        Files.writeString(dir.resolve("report.txt"), out);
      }
    } finally {
      apiServer.close();
    }
    System.exit(0);
  }

  /** Runs {@code during} every second for {@code minutes} and reports what was written. */
  private static String window(
      KubernetesClient admin, String name, int pending, int minutes, Runnable during)
      throws InterruptedException {
    ApiRequests before = ApiRequests.scrape(admin);
    long end = System.nanoTime() + Duration.ofMinutes(minutes).toNanos();
    while (System.nanoTime() < end) {
      during.run();
      Thread.sleep(1000); // the churn's tick
    }
    Map<String, Long> writes = ApiRequests.scrape(admin).since(before);
    long status =
        writes.getOrDefault("PUT workloads/status", 0L)
            + writes.getOrDefault("PATCH workloads/status", 0L);
    long events = writes.getOrDefault("POST events", 0L) + writes.getOrDefault("PATCH events", 0L);
    return String.format(
        Locale.ROOT,
        "[pending] %s, %d min: %d Workload status writes (%.4f per"
            + " pending per min), %d Event writes (%.4f per pending per min); all: %s%n",
        name,
        minutes,
        status,
        status / (double) pending / minutes,
        events,
        events / (double) pending / minutes,
        writes);
  }

  private static long lastChurn;

  /** Every {@code seconds}, marks each ClusterQueue's admitted workload Finished. */
  private static int finishOnePerQueue(KubernetesClient admin, int seconds) {
    if (System.nanoTime() - lastChurn < Duration.ofSeconds(seconds).toNanos()) {
      return 0;
    }
    lastChurn = System.nanoTime();
    int n = 0;
    for (Workload wl : admin.resources(Workload.class).inAnyNamespace().list().getItems()) {
      if (wl.getStatus() != null
          && wl.getStatus().admission != null
          && dev.berth.operator.admission.StatusConditions.find(
                  wl.getStatus().conditions, "Finished")
              .isEmpty()) {
        dev.berth.operator.admission.StatusConditions.set(
            wl.getStatus(),
            "Finished",
            true,
            "Succeeded",
            "finished by the benchmark",
            java.time.Instant.now());
        admin.resource(wl).updateStatus();
        n++;
      }
    }
    return n;
  }

  private static void create(KubernetesClient admin, int pending) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int first = t;
        done.add(
            pool.submit(
                () -> {
                  for (int i = first; i < pending; i += 8) {
                    admin.resource(workload(i)).create();
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static Workload workload(int i) {
    return OnePodWorkload.of(
        queue(i % QUEUES), String.format(Locale.ROOT, "wl-%05d", i), i % 3 * 50, 1);
  }

  private static String queue(int q) {
    return String.format(Locale.ROOT, "pending-%02d", q);
  }

  /** A flavor, and per ClusterQueue (1 cpu: one workload at a time) a namespace and LocalQueue. */
  private static void queues(KubernetesClient admin) {
    admin
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName("berth-system").endMetadata().build())
        .create();
    ResourceFlavor flavor = new ResourceFlavor();
    flavor.getMetadata().setName(FLAVOR);
    flavor.setSpec(new ResourceFlavorSpec());
    admin.resource(flavor).create();
    for (int q = 0; q < QUEUES; q++) {
      String name = queue(q);
      ClusterQueue cq = new ClusterQueue();
      cq.getMetadata().setName(name);
      ClusterQueueSpec spec = new ClusterQueueSpec();
      spec.namespaceSelector = new LabelSelector();
      spec.resourceGroups =
          List.of(
              new ResourceGroup(
                  List.of("cpu"),
                  List.of(new FlavorQuotas(FLAVOR, List.of(new ResourceQuota("cpu", "1"))))));
      cq.setSpec(spec);
      admin.resource(cq).create();
      SchedulerLoadBenchmark.namespaceWithLocalQueue(admin, name);
    }
  }
}
