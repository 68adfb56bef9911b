package dev.berth.operator.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Workload;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Events still waiting when the operator stops: written before close returns, within its deadline.
 * The API server is a stand-in ({@link EventRecorder.Sink}) whose create takes as long as the test
 * says; on a real API server the same is shown by LeaderElectionIT, and the Events themselves by
 * every end-to-end test that reads them.
 */
class EventRecorderTest {
  private final List<String> created = new CopyOnWriteArrayList<>();

  /** The reasons of the Events created, in order. */
  private final List<String> reasons = new CopyOnWriteArrayList<>();

  /** Each create waits for this before it returns. */
  private volatile CountDownLatch slow = new CountDownLatch(0);

  private final EventRecorder.Sink sink =
      event -> {
        try {
          slow.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        created.add(event.object().getMetadata().getName());
        reasons.add(event.reason());
      };

  private static Workload workload(String name) {
    Workload wl = new Workload();
    wl.getMetadata().setName(name);
    wl.getMetadata().setNamespace("team");
    return wl;
  }

  @Test
  void theEventsWaitingAtStopAreWrittenBeforeCloseReturns() {
    CountDownLatch hold = new CountDownLatch(1);
    slow = hold;
    EventRecorder recorder = new EventRecorder(sink);
    for (int i = 0; i < 5; i++) {
      recorder.normal(workload("w" + i), "Admitted", "admitted");
    }
    assertThat(created).as("all five wait behind the creates on the wire").isEmpty();
    slow = new CountDownLatch(0);
    hold.countDown();
    recorder.close(Duration.ofSeconds(10));
    assertThat(created).containsExactlyInAnyOrder("w0", "w1", "w2", "w3", "w4");
    // After the stop: dropped, not thrown at the caller.
    recorder.normal(workload("late"), "Admitted", "admitted");
    assertThat(created).hasSize(5);
  }

  @Test
  void pendingCountsTheEventsNotYetWrittenIncludingOnesTheApiServerRefused() {
    CountDownLatch hold = new CountDownLatch(1);
    slow = hold;
    EventRecorder recorder = new EventRecorder(sink);
    for (int i = 0; i < 5; i++) {
      recorder.normal(workload("w" + i), "Admitted", "admitted");
    }
    assertThat(recorder.pending()).isEqualTo(5);
    slow = new CountDownLatch(0);
    hold.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> recorder.pending() == 0);
    assertThat(created).hasSize(5);
    // A create the API server refuses is given up on: no longer pending either.
    EventRecorder refused =
        new EventRecorder(
            event -> {
              throw new io.fabric8.kubernetes.client.KubernetesClientException("HTTP 500");
            });
    refused.warning(workload("x"), "Evicted", "evicted");
    await().atMost(Duration.ofSeconds(10)).until(() -> refused.pending() == 0);
    // After the stop: dropped at once, never counted as waiting.
    recorder.close(Duration.ofSeconds(10));
    recorder.normal(workload("late"), "Admitted", "admitted");
    assertThat(recorder.pending()).isZero();
    refused.close(Duration.ofSeconds(10));
  }

  @Test
  void anObjectsEventsAreWrittenInTheOrderRecordedWhileOthersGoInParallel() throws Exception {
    CountDownLatch hold = new CountDownLatch(1);
    slow = hold;
    EventRecorder recorder = new EventRecorder(sink);
    Workload one = workload("one");
    one.getMetadata().setUid("uid-one");
    for (int i = 0; i < 20; i++) {
      recorder.normal(one, "R" + i, "step " + i);
    }
    // Other objects' Events are not held behind "one"'s: some go through other writers.
    for (int i = 0; i < 20; i++) {
      Workload other = workload("other" + i);
      other.getMetadata().setUid("uid-other-" + i);
      recorder.normal(other, "Other", "other");
    }
    hold.countDown();
    slow = new CountDownLatch(0);
    recorder.close(Duration.ofSeconds(10));
    assertThat(reasons.stream().filter(r -> r.startsWith("R")))
        .containsExactlyElementsOf(
            java.util.stream.IntStream.range(0, 20).mapToObj(i -> "R" + i).toList());
    assertThat(created).hasSize(40);
  }

  @Test
  void anApiServerThatTakesNoEventDoesNotHoldTheStopPastItsDeadline() {
    slow = new CountDownLatch(1); // never released: every create hangs
    EventRecorder recorder = new EventRecorder(sink);
    recorder.normal(workload("a"), "Admitted", "admitted");
    recorder.normal(workload("b"), "Admitted", "admitted");
    long started = System.nanoTime();
    recorder.close(Duration.ofMillis(300));
    long ms = (System.nanoTime() - started) / 1_000_000;
    assertThat(ms).as("close returned after its deadline, not after the create").isLessThan(5_000);
    assertThat(created).isEmpty();
  }
}
