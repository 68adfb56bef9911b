package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.quota.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The operator stopped and restarted in the middle of 200 submissions: every Job is admitted
 * exactly once, and an independent watcher of the API server sees the quota hold at every event.
 */
class RestartE2EIT {
  private static final int JOBS = 200;
  private static final long QUOTA_MILLIS = 20_000;

  @Test
  void restartMidwayAdmitsEveryJobExactlyOnceWithinQuota() throws Exception {
    Scenario s = new Scenario("restart");
    s.client.resource(ScenarioObjects.flavor("restart-flavor", Map.of())).create();
    s.client
        .resource(ScenarioObjects.clusterQueue("restart-cq", "restart-flavor", "cpu", "20"))
        .create();
    s.client.resource(ScenarioObjects.localQueue(s.namespace, "lq", "restart-cq")).create();

    InvariantWatcher watcher = new InvariantWatcher();
    Watch watch = s.client.resources(Workload.class).inNamespace(s.namespace).watch(watcher);
    // Plays the kubelet: a running Job finishes a moment after it starts.
    ScheduledExecutorService kubelet = Executors.newSingleThreadScheduledExecutor();
    kubelet.scheduleWithFixedDelay(() -> completeRunning(s), 300, 300, TimeUnit.MILLISECONDS);
    try {
      for (int i = 0; i < JOBS / 2; i++) {
        s.client.resource(ScenarioObjects.job(s.namespace, "job-" + i, "lq", 1, "1")).create();
      }
      await().atMost(Duration.ofSeconds(60)).until(() -> watcher.admittedOnce() >= 30);
      RunningOperator.restartShared(
          () -> {
            for (int i = JOBS / 2; i < JOBS; i++) {
              s.client
                  .resource(ScenarioObjects.job(s.namespace, "job-" + i, "lq", 1, "1"))
                  .create();
            }
          });
      await()
          .atMost(Duration.ofSeconds(240))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> watcher.finished() == JOBS);
    } finally {
      kubelet.shutdownNow();
      watch.close();
    }
    assertThat(watcher.violations).isEmpty();
    assertThat(watcher.maxInUse.get()).isLessThanOrEqualTo(QUOTA_MILLIS);
    assertThat(watcher.reservations).hasSize(JOBS);
    assertThat(watcher.reservations.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    System.out.printf(
        "[berth-test] restart: %d jobs, each admitted once; peak usage %d of %d millicpu%n",
        JOBS, watcher.maxInUse.get(), QUOTA_MILLIS);
  }

  private static void completeRunning(Scenario s) {
    try {
      for (Job job : s.client.batch().v1().jobs().inNamespace(s.namespace).list().getItems()) {
        if (Boolean.FALSE.equals(job.getSpec().getSuspend())
            && job.getStatus().getCompletionTime() == null) {
          Kubelet.complete(s.client, job);
        }
      }
    } catch (RuntimeException e) {
      // A conflict with the operator's own write; the next round completes it.
    }
  }

  /** Sums reserved usage from every Workload event, independent of the operator's state. */
  static final class InvariantWatcher implements Watcher<Workload> {
    final Map<String, Long> inUse = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> reservations = new ConcurrentHashMap<>();
    final Map<String, Boolean> reserved = new ConcurrentHashMap<>();
    final Map<String, Boolean> done = new ConcurrentHashMap<>();
    final List<String> violations = new CopyOnWriteArrayList<>();
    final java.util.concurrent.atomic.AtomicLong maxInUse =
        new java.util.concurrent.atomic.AtomicLong();

    @Override
    public synchronized void eventReceived(Action action, Workload wl) {
      String uid = wl.getMetadata().getUid();
      boolean isReserved =
          action != Action.DELETED
              && wl.getStatus() != null
              && wl.getStatus().admission != null
              && wl.getStatus().conditions.stream()
                  .anyMatch(c -> c.type.equals("QuotaReserved") && c.isTrue());
      boolean isFinished =
          wl.getStatus() != null
              && wl.getStatus().conditions != null
              && wl.getStatus().conditions.stream()
                  .anyMatch(c -> c.type.equals("Finished") && c.isTrue());
      if (isFinished) {
        done.put(uid, true);
      }
      if (isReserved && !Boolean.TRUE.equals(reserved.get(uid))) {
        reservations.computeIfAbsent(uid, u -> new AtomicInteger()).incrementAndGet();
      }
      reserved.put(uid, isReserved);
      if (isReserved && !isFinished) {
        long cpu =
            wl.getStatus().admission.podSetAssignments.stream()
                .mapToLong(ps -> Quantity.parse("cpu", ps.resourceUsage.get("cpu").toString()))
                .sum();
        inUse.put(uid, cpu);
      } else {
        inUse.remove(uid);
      }
      long total = inUse.values().stream().mapToLong(Long::longValue).sum();
      maxInUse.accumulateAndGet(total, Math::max);
      if (total > QUOTA_MILLIS) {
        violations.add(
            "usage " + total + "m after " + action + " of " + wl.getMetadata().getName());
      }
    }

    int admittedOnce() {
      return reservations.size();
    }

    int finished() {
      return done.size();
    }

    @Override
    public void onClose(WatcherException cause) {}
  }
}
