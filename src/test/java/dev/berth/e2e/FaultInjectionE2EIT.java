package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.quota.Quantity;
import dev.berth.operator.BerthOperator;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Jobs stream through three ClusterQueues of a cohort (borrowing and reclaiming preemption on)
 * while the operator talks to the API server through a {@link FaultProxy} that refuses and cuts
 * connections on a seeded schedule (writes lose their replies, watches drop), and the operator is
 * stopped and started again twice. An independent watcher, connected directly, checks at every
 * Workload event that no ClusterQueue exceeds nominal + borrowingLimit, that the cohort stays
 * within its pool, and that no Job has two Workloads holding quota; at the end every Job finished.
 * Bounded: {@code -Dberth.faults.jobs} (default 40), {@code -Dberth.faults.seed} and {@code
 * -Dberth.faults.cutRate} make a longer, another or a rougher run (docs/reliability.md).
 */
class FaultInjectionE2EIT {
  private static final int JOBS = Integer.getInteger("berth.faults.jobs", 40);
  private static final long SEED = Long.getLong("berth.faults.seed", 13L);

  /** Share of connections cut while open; another 5 % are refused at once. */
  private static final double CUT_RATE =
      Double.parseDouble(System.getProperty("berth.faults.cutRate", "0.4"));

  private static final String NS = "faults";
  private static final long NOMINAL = 4_000;
  private static final long BORROWING = 4_000;
  private static final List<String> QUEUES = List.of("fault-a", "fault-b", "fault-c");

  @Test
  void jobsThroughAFaultyConnectionAreAllAdmittedWithinQuota() throws Exception {
    try (TestApiServer.Cluster cluster = TestApiServer.dedicated()) {
      KubernetesClient admin = cluster.client();
      Namespaces.ensure(admin, NS);
      admin.resource(ScenarioObjects.flavor("fault-flavor", Map.of())).create();
      for (String q : QUEUES) {
        admin.resource(clusterQueue(q)).create();
        admin.resource(ScenarioObjects.localQueue(NS, q, q)).create();
      }
      Matcher server = Pattern.compile("server: (\\S+)").matcher(cluster.kubeconfig());
      assertThat(server.find()).isTrue();
      URI api = URI.create(server.group(1));
      InetSocketAddress upstream = new InetSocketAddress(api.getHost(), api.getPort());
      try (FaultProxy proxy = new FaultProxy(upstream, SEED, 0.05, CUT_RATE)) {
        String viaProxy =
            cluster
                .kubeconfig()
                .replace(
                    server.group(1), api.getScheme() + "://" + api.getHost() + ":" + proxy.port());
        run(admin, proxy, viaProxy);
      }
    }
  }

  private static void run(KubernetesClient admin, FaultProxy proxy, String viaProxy)
      throws Exception {
    QuotaWatcher watcher = new QuotaWatcher();
    Watch watch = admin.resources(Workload.class).inNamespace(NS).watch(watcher);
    ScheduledExecutorService kubelet = Executors.newSingleThreadScheduledExecutor();
    kubelet.scheduleWithFixedDelay(() -> completeRunning(admin), 500, 700, TimeUnit.MILLISECONDS);
    Random jobs = new Random(SEED);
    BerthOperator operator = startThroughFaults(viaProxy);
    int restarts = 0;
    long started = System.nanoTime();
    try {
      for (int i = 0; i < JOBS; i++) {
        String queue = QUEUES.get(jobs.nextInt(QUEUES.size()));
        String cpu = String.valueOf(1 + jobs.nextInt(3));
        admin.resource(ScenarioObjects.job(NS, "job-" + i, queue, 1, cpu)).create();
        if (i == JOBS / 3 || i == 2 * JOBS / 3) {
          // A crash or a rollout: a fresh operator rebuilds everything through the faults.
          operator.close();
          operator = startThroughFaults(viaProxy);
          restarts++;
        }
      }
      await()
          .atMost(Duration.ofSeconds(150))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> finished(admin) == JOBS);
    } finally {
      proxy.stopFaults();
      kubelet.shutdownNow();
      watch.close();
      operator.close();
    }
    System.out.printf(
        "[berth-test] faults: connections %d, refused %d, cut %d; operator restarts %d "
            + "(failed starts %d); violations %d; lost jobs %d; peak cohort usage %d of %d "
            + "millicpu; %d s%n",
        proxy.connections.get(),
        proxy.refused.get(),
        proxy.cut.get(),
        restarts,
        failedStarts,
        watcher.violations.size(),
        JOBS - finished(admin),
        watcher.peak,
        QUEUES.size() * NOMINAL,
        Duration.ofNanos(System.nanoTime() - started).toSeconds());
    assertThat(proxy.cut.get() + proxy.refused.get()).as("faults injected").isPositive();
    assertThat(watcher.violations).isEmpty();
  }

  /** Failed starts (informers that could not sync through the faults), retried as a Pod is. */
  private static int failedStarts;

  private static BerthOperator startThroughFaults(String kubeconfig) {
    for (int attempt = 1; ; attempt++) {
      try {
        return RunningOperator.startNew(kubeconfig, false);
      } catch (RuntimeException e) {
        failedStarts++;
        if (attempt == 5) {
          throw e;
        }
      }
    }
  }

  private static ClusterQueue clusterQueue(String name) {
    ClusterQueue cq = ScenarioObjects.clusterQueue(name, "fault-flavor", "cpu", "4");
    cq.getSpec().cohortName = "faults";
    ScenarioObjects.quota(cq).borrowingLimit = new io.fabric8.kubernetes.api.model.Quantity("4");
    cq.getSpec().preemption = new ClusterQueuePreemption();
    cq.getSpec().preemption.reclaimWithinCohort = ClusterQueuePreemption.ReclaimWithinCohort.Any;
    return cq;
  }

  private static long finished(KubernetesClient admin) {
    return admin.batch().v1().jobs().inNamespace(NS).list().getItems().stream()
        .filter(j -> j.getStatus() != null && j.getStatus().getCompletionTime() != null)
        .count();
  }

  /** Plays the kubelet: a Job found running finishes. */
  private static void completeRunning(KubernetesClient admin) {
    try {
      for (Job job : admin.batch().v1().jobs().inNamespace(NS).list().getItems()) {
        if (Boolean.FALSE.equals(job.getSpec().getSuspend())
            && job.getStatus().getCompletionTime() == null) {
          Kubelet.complete(admin, job);
        }
      }
    } catch (RuntimeException e) {
      // A conflict with the operator's own write; the next round completes it.
    }
  }

  /** Sums reserved usage per ClusterQueue from every Workload event, independent of Berth. */
  static final class QuotaWatcher implements Watcher<Workload> {
    private final Map<String, String> queueOf = new HashMap<>();
    private final Map<String, Long> usage = new HashMap<>();
    private final Map<String, String> jobOf = new HashMap<>();
    final List<String> violations = new CopyOnWriteArrayList<>();
    final Map<String, Integer> reservations = new ConcurrentHashMap<>();
    volatile long peak;

    @Override
    public synchronized void eventReceived(Action action, Workload wl) {
      String uid = wl.getMetadata().getUid();
      boolean reserved =
          action != Action.DELETED
              && wl.getStatus() != null
              && wl.getStatus().admission != null
              && wl.getStatus().conditions != null
              && wl.getStatus().conditions.stream()
                  .anyMatch(c -> c.type.equals("QuotaReserved") && c.isTrue())
              && wl.getStatus().conditions.stream()
                  .noneMatch(c -> c.type.equals("Finished") && c.isTrue());
      if (reserved && !usage.containsKey(uid)) {
        reservations.merge(uid, 1, Integer::sum);
      }
      if (reserved) {
        queueOf.put(uid, wl.getStatus().admission.clusterQueue);
        usage.put(
            uid,
            wl.getStatus().admission.podSetAssignments.stream()
                .mapToLong(ps -> Quantity.parse("cpu", ps.resourceUsage.get("cpu").toString()))
                .sum());
        wl.getMetadata().getOwnerReferences().stream()
            .findFirst()
            .ifPresent(o -> jobOf.put(uid, o.getName()));
      } else {
        usage.remove(uid);
      }
      check(wl.getMetadata().getName() + " " + action);
    }

    private void check(String after) {
      Map<String, Long> perQueue = new HashMap<>();
      Map<String, Integer> perJob = new HashMap<>();
      long total = 0;
      for (Map.Entry<String, Long> u : usage.entrySet()) {
        perQueue.merge(queueOf.get(u.getKey()), u.getValue(), Long::sum);
        perJob.merge(jobOf.getOrDefault(u.getKey(), u.getKey()), 1, Integer::sum);
        total += u.getValue();
      }
      peak = Math.max(peak, total);
      perQueue.forEach(
          (q, used) -> {
            if (used > NOMINAL + BORROWING) {
              violations.add(q + " uses " + used + "m after " + after);
            }
          });
      if (total > QUEUES.size() * NOMINAL) {
        violations.add("cohort uses " + total + "m after " + after);
      }
      perJob.forEach(
          (job, n) -> {
            if (n > 1) {
              violations.add(job + " has " + n + " Workloads holding quota after " + after);
            }
          });
    }

    @Override
    public void onClose(WatcherException cause) {}
  }
}
