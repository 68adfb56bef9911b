package dev.berth.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.engine.AdmissionEngine;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The writers' ordering rules, with the test thread as the admission loop: results queue up as the
 * loop's inbox would hold them and are applied when the test says so.
 */
class WritePoolTest {
  private final ClusterState state = new ClusterState(new AdmissionEngine());
  private final LinkedBlockingQueue<Consumer<ClusterState>> inbox = new LinkedBlockingQueue<>();
  private final WritePool pool = new WritePool(new WriterSettings(4, 8, 1_000, 1_000, 5), state);
  private final List<String> log = new CopyOnWriteArrayList<>();

  /** Counted down by each write as it is sent. */
  private final java.util.concurrent.Semaphore sent = new java.util.concurrent.Semaphore(0);

  WritePoolTest() {
    pool.deliverTo(inbox::add);
  }

  @AfterEach
  void close() {
    pool.close();
  }

  /** The loop applying the next result that comes back. */
  private void applyNext() throws InterruptedException {
    Consumer<ClusterState> result = inbox.poll(10, TimeUnit.SECONDS);
    assertThat(result).as("a result came back").isNotNull();
    result.accept(state);
  }

  private WritePool.Write write(String name, CountDownLatch release) {
    return () -> {
      log.add("send " + name);
      sent.release();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return s -> log.add("applied " + name);
    };
  }

  @Test
  void theNextWriteOfAnObjectIsPreparedOnlyAfterThePreviousResultIsApplied() throws Exception {
    CountDownLatch first = new CountDownLatch(1);
    pool.submit(
        "w",
        () -> {
          log.add("prepare 1");
          return write("1", first);
        });
    pool.submit(
        "w",
        () -> {
          log.add("prepare 2");
          return write("2", new CountDownLatch(0));
        });
    assertThat(sent.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
    assertThat(pool.busy("w")).isTrue();
    first.countDown();
    applyNext();
    applyNext();
    assertThat(log)
        .containsExactly("prepare 1", "send 1", "applied 1", "prepare 2", "send 2", "applied 2");
    assertThat(pool.busy("w")).isFalse();
  }

  @Test
  void afterTheFenceAWriteOnTheWireComesBackAndNothingMoreIsSent() throws Exception {
    CountDownLatch first = new CountDownLatch(1);
    pool.submit("w", () -> write("1", first));
    pool.submit(
        "w",
        () -> {
          log.add("prepare 2");
          return write("2", new CountDownLatch(0));
        });
    assertThat(sent.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
    pool.fence(); // the Lease is lost while write 1 is on the wire
    first.countDown();
    applyNext();
    applyNext();
    assertThat(log).containsExactly("send 1", "applied 1", "prepare 2");
    assertThat(pool.outstanding()).isZero();
  }

  @Test
  void writesOfDifferentObjectsAreOnTheWireTogether() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    pool.submit("a", () -> write("a", release));
    pool.submit("b", () -> write("b", release));
    // Both are sent while neither may finish: two writers at once.
    assertThat(sent.tryAcquire(2, 10, TimeUnit.SECONDS)).isTrue();
    release.countDown();
    applyNext();
    applyNext();
    assertThat(pool.outstanding()).isZero();
  }

  @Test
  void aWriteWithNothingLeftToSendIsSettledAtOnce() throws Exception {
    long before = pool.lastSubmitted();
    pool.submit("w", () -> null);
    assertThat(pool.settled(pool.lastSubmitted())).isTrue();
    pool.submit("w", () -> write("x", new CountDownLatch(0)));
    long mark = pool.lastSubmitted();
    assertThat(mark).isGreaterThan(before);
    assertThat(pool.settled(mark)).isFalse();
    applyNext();
    assertThat(pool.settled(mark)).isTrue();
  }

  @Test
  void aWorkloadEventDuringItsWriteIsHeldUntilTheResult() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    pool.submit("uid-1", () -> write("1", release));
    var wl = new dev.berth.api.v1beta1.Workload();
    wl.getMetadata().setUid("uid-1");
    wl.getMetadata().setName("w");
    wl.getMetadata().setNamespace("team");
    wl.getMetadata().setResourceVersion("7");
    wl.setSpec(new dev.berth.api.v1beta1.WorkloadSpec());
    wl.getSpec().active = false;
    state.workload(wl);
    assertThat(state.latestWorkload("uid-1")).as("held while the write is out").isEmpty();
    release.countDown();
    applyNext();
    assertThat(state.latestWorkload("uid-1")).contains(wl);
  }

  @Test
  void aFullPoolRefusesMoreWritesUntilOneIsBack() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    for (int i = 0; i < 8; i++) {
      assertThat(pool.submit("k" + (i % 3), () -> write("w", release))).isTrue();
    }
    // Eight in flight or waiting (three on the wire, five behind them): the ninth is refused.
    assertThat(pool.hasRoom(1)).isFalse();
    assertThat(pool.submit("other", () -> write("refused", release))).isFalse();
    release.countDown();
    applyNext();
    assertThat(pool.hasRoom(1)).isTrue();
    assertThat(pool.submit("other", () -> write("later", new CountDownLatch(0)))).isTrue();
    for (int i = 0; i < 8; i++) {
      applyNext();
    }
    assertThat(pool.outstanding()).isZero();
    assertThat(log).doesNotContain("send refused");
  }

  @Test
  void aWorkloadDeletedDuringItsWriteIsForgottenAfterTheResult() throws Exception {
    var wl = workload("uid-2", "3");
    state.workload(wl);
    CountDownLatch release = new CountDownLatch(1);
    pool.submit("uid-2", () -> write("2", release));
    assertThat(sent.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
    state.workloadDeleted("uid-2");
    assertThat(state.latestWorkload("uid-2")).as("kept while the write is out").contains(wl);
    release.countDown();
    applyNext();
    assertThat(state.latestWorkload("uid-2")).isEmpty();
  }

  @Test
  void aWriteThatThrowsStillLetsTheNextWriteOfItsObjectGo() throws Exception {
    pool.submit(
        "w",
        () ->
            () -> {
              throw new IllegalStateException("boom");
            });
    pool.submit("w", () -> write("after", new CountDownLatch(0)));
    applyNext();
    applyNext();
    assertThat(log).containsExactly("send after", "applied after");
    assertThat(pool.busy("w")).isFalse();
  }

  private static dev.berth.api.v1beta1.Workload workload(String uid, String rv) {
    var wl = new dev.berth.api.v1beta1.Workload();
    wl.getMetadata().setUid(uid);
    wl.getMetadata().setName("w-" + uid);
    wl.getMetadata().setNamespace("team");
    wl.getMetadata().setResourceVersion(rv);
    wl.setSpec(new dev.berth.api.v1beta1.WorkloadSpec());
    wl.getSpec().active = false;
    return wl;
  }

  @Test
  void settingsNameTheVariableThatIsWrong() {
    assertThatThrownBy(() -> settings(Map.of("BERTH_WRITERS", "0")))
        .hasMessageContaining("BERTH_WRITERS");
    assertThatThrownBy(() -> settings(Map.of("BERTH_WRITE_QPS", "fast")))
        .hasMessageContaining("BERTH_WRITE_QPS");
    assertThatThrownBy(() -> settings(Map.of("BERTH_WRITE_BURST", "-1")))
        .hasMessageContaining("BERTH_WRITE_BURST");
    assertThatThrownBy(() -> settings(Map.of("BERTH_WRITE_QUEUE", "2")))
        .hasMessageContaining("BERTH_WRITE_QUEUE");
    assertThatThrownBy(() -> settings(Map.of("BERTH_PENDING_WRITE_QPS", "500")))
        .hasMessageContaining("BERTH_PENDING_WRITE_QPS");
    assertThatThrownBy(() -> settings(Map.of("BERTH_QUEUE_STATUS_WRITE_QPS", "0")))
        .hasMessageContaining("BERTH_QUEUE_STATUS_WRITE_QPS");
    assertThatThrownBy(() -> settings(Map.of("BERTH_QUEUE_STATUS_WRITE_QPS", "fast")))
        .hasMessageContaining(
            "clientConnection.queueStatusQps (BERTH_QUEUE_STATUS_WRITE_QPS): must be a number");
    assertThat(settings(Map.of("BERTH_QUEUE_STATUS_WRITE_QPS", "2.5")).queueStatusQps())
        .isEqualTo(2.5);
    assertThat(settings(Map.of("BERTH_WRITERS", "16", "BERTH_WRITE_QPS", "50")))
        .isEqualTo(new WriterSettings(16, 20_000, 50, 200, 5));
    assertThat(settings(Map.of())).isEqualTo(WriterSettings.DEFAULT);
  }

  /** The writers' settings the configuration's loader makes of these environment variables. */
  private static WriterSettings settings(Map<String, String> env) {
    return WriterSettings.of(
        dev.berth.operator.config.ConfigurationLoader.fromEnvironment(env).clientConnection());
  }

  @Test
  void theTokensAvailableAreWhatTryAcquireWouldTake() {
    WriteRate rate = new WriteRate(10, 3);
    long t0 = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);

    assertThat(rate.available(t0)).isEqualTo(3);
    assertThat(rate.tryAcquire(t0)).isTrue();
    assertThat(rate.tryAcquire(t0)).isTrue();
    assertThat(rate.available(t0)).isEqualTo(1);
    assertThat(rate.tryAcquire(t0)).isTrue();
    assertThat(rate.available(t0)).isZero();
    assertThat(rate.tryAcquire(t0)).isFalse();
    // 10 a second: one more after 100 ms, and never more than the burst.
    assertThat(rate.available(t0 + TimeUnit.MILLISECONDS.toNanos(150))).isEqualTo(1);
    assertThat(rate.available(t0 + TimeUnit.SECONDS.toNanos(10))).isEqualTo(3);
  }

  @Test
  void theRateBoundMakesAWriterWaitOnceTheBurstIsSpent() throws Exception {
    WriteRate rate = new WriteRate(20, 2);
    long start = System.nanoTime();
    for (int i = 0; i < 4; i++) {
      rate.acquire();
    }
    // Two from the burst, two more at 20/s: at least ~100 ms.
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(90));
  }

  /** A write that takes {@code millis} on the wire: the API server's latency, not a wait. */
  private static WritePool.Write taking(long millis) {
    return () -> {
      long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
      for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
        java.util.concurrent.locks.LockSupport.parkNanos(left);
      }
      return s -> {};
    };
  }

  @Test
  void theActivityCountsWritesTheirTimeOnTheWireAndWhatIsOutstanding() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    pool.submit("held", () -> write("held", release));
    pool.submit("held", () -> write("after", new CountDownLatch(0)));
    assertThat(sent.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
    WritePool.Activity during = pool.activity();
    assertThat(during.writers()).isEqualTo(4);
    assertThat(during.outstanding()).as("one on the wire, one behind it").isEqualTo(2);
    assertThat(during.sent()).as("counted when it is back").isZero();

    release.countDown();
    applyNext();
    applyNext();
    pool.submit("slow", () -> taking(120));
    applyNext();
    WritePool.Activity after = pool.activity();
    assertThat(after.outstanding()).isZero();
    assertThat(after.sent()).isEqualTo(3);
    assertThat(after.sendingSeconds()).as("the slow write's 120 ms at least").isGreaterThan(0.12);
    assertThat(after.throttledSeconds()).as("1,000 a second: no wait").isLessThan(0.1);
  }

  @Test
  void timeWaitingForTheClientRateBoundIsCountedApart() throws Exception {
    try (WritePool slow = new WritePool(new WriterSettings(4, 8, 4, 1, 4, 4), state)) {
      LinkedBlockingQueue<Consumer<ClusterState>> results = new LinkedBlockingQueue<>();
      slow.deliverTo(results::add);
      // Four writes at once, 4 a second with a burst of 1: the last waits ~750 ms, all ~1.5 s.
      for (String key : List.of("a", "b", "c", "d")) {
        slow.submit(key, () -> taking(0));
      }
      for (int i = 0; i < 4; i++) {
        Consumer<ClusterState> result = results.poll(10, TimeUnit.SECONDS);
        assertThat(result).isNotNull();
        result.accept(state);
      }
      WritePool.Activity activity = slow.activity();
      assertThat(activity.sent()).isEqualTo(4);
      assertThat(activity.throttledSeconds()).isGreaterThan(1.2);
      assertThat(activity.sendingSeconds()).isLessThan(activity.throttledSeconds());
    }
  }
}
