package dev.berth.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.CycleResult;
import dev.berth.operator.WaitForPodsReady;
import dev.berth.operator.events.EventRecorder;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.NamespaceableResource;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The DecisionWriter on real API model objects and a real engine, with the test thread as the
 * admission loop: the writers' results wait in an inbox until the test applies them, as the loop
 * would before its next cycle. The Kubernetes client is a stand-in (Mockito) that answers each
 * Workload status update as the test says, so that every answer the fault-path rules name (a
 * conflict, a 429, a 5xx, no reply) can be given on cue; the same rules run against a real API
 * server behind a fault proxy in FaultInjectionE2EIT and FaultSuiteE2EIT.
 */
class DecisionWriterTest {
  private final KubernetesClient client = mock(KubernetesClient.class);
  private final ClusterState state = ClusterStateFaultsTest.cluster();
  private final LinkedBlockingQueue<Consumer<ClusterState>> inbox = new LinkedBlockingQueue<>();
  private final WritePool pool = new WritePool(new WriterSettings(2, 4, 1_000, 1_000, 5), state);

  /** The Events recorded (a stand-in for the API server's Events). */
  private final List<EventRecorder.Pending> events =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  private final EventRecorder recorder = new EventRecorder(events::add);
  private final DecisionWriter writer =
      new DecisionWriter(
          client,
          recorder,
          Clock.systemUTC(),
          new SimpleMeterRegistry(),
          WaitForPodsReady.DEFAULT,
          new CheckBackoffs(),
          pool,
          dev.berth.operator.kube.StatusWrite.decoded(client));

  /** The stand-in's answers to the next Workload status updates, in order; then "written". */
  private final Deque<UnaryOperator<Workload>> answers = new ArrayDeque<>();

  /** What each status update carried. */
  private final List<Workload> sent = new ArrayList<>();

  private long nextVersion = 1_000;

  /** A cycle that decided nothing (of an empty engine): a write-out with only retries in it. */
  private static final CycleResult NOTHING = new dev.berth.engine.AdmissionEngine().runCycle(0);

  /** The read-back's answers (team/w), in order; each returns the stored object or throws. */
  private final Deque<java.util.function.Supplier<Workload>> reads = new ArrayDeque<>();

  @SuppressWarnings("unchecked")
  DecisionWriterTest() {
    pool.deliverTo(inbox::add);
    MixedOperation<Workload, KubernetesResourceList<Workload>, Resource<Workload>> workloads =
        mock(MixedOperation.class);
    NonNamespaceOperation<Workload, KubernetesResourceList<Workload>, Resource<Workload>> inTeam =
        mock(NonNamespaceOperation.class);
    Resource<Workload> named = mock(Resource.class);
    when(client.resources(Workload.class)).thenReturn((MixedOperation) workloads);
    when(workloads.inNamespace("team")).thenReturn(inTeam);
    when(inTeam.withName(any())).thenReturn(named);
    when(named.get()).thenAnswer(i -> reads.poll().get());
    when(client.resource(any(Workload.class)))
        .thenAnswer(
            invocation -> {
              Workload copy = invocation.getArgument(0);
              @SuppressWarnings("unchecked")
              NamespaceableResource<Workload> resource = mock(NamespaceableResource.class);
              when(resource.updateStatus()).thenAnswer(i -> answer(copy));
              return resource;
            });
  }

  @AfterEach
  void close() {
    pool.close();
  }

  private synchronized Workload answer(Workload copy) {
    sent.add(Serialization.clone(copy));
    UnaryOperator<Workload> next = answers.poll();
    return next == null ? written(copy) : next.apply(copy);
  }

  /** As the API server stores it: the same object at a new resourceVersion. */
  private synchronized Workload written(Workload copy) {
    Workload out = Serialization.clone(copy);
    out.getMetadata().setResourceVersion(String.valueOf(nextVersion++));
    return out;
  }

  private static UnaryOperator<Workload> refused(int code) {
    return copy -> {
      throw new KubernetesClientException(
          new StatusBuilder().withCode(code).withMessage("refused " + code).build());
    };
  }

  private static final UnaryOperator<Workload> NO_REPLY =
      copy -> {
        throw new KubernetesClientException("connection reset", new java.io.IOException("reset"));
      };

  /** The next read-back of team/w returns {@code stored}. */
  private void readBackReturns(Workload stored) {
    reads.add(() -> stored);
  }

  /** The loop applying the next result that comes back. */
  private void applyNext() throws InterruptedException {
    Consumer<ClusterState> result = inbox.poll(10, TimeUnit.SECONDS);
    assertThat(result).as("a write's result came back").isNotNull();
    result.accept(state);
  }

  private CycleResult cycle() {
    return state.engine().runCycle(System.currentTimeMillis());
  }

  private static String clusterQueueOf(Workload wl) {
    return wl.getStatus().admission == null ? null : wl.getStatus().admission.clusterQueue;
  }

  @Test
  void anAdmissionIsHeldAsTentativeWhileItsWriteIsOutAndKeptWhenWritten() throws Exception {
    Workload w = ClusterStateFaultsTest.pending("w", 0, "1");
    state.workload(w);
    CycleResult decided = cycle();
    assertThat(decided.admissions()).hasSize(1);

    assertThat(writer.apply(decided, state)).as("nothing to retry").isFalse();
    // The loop is free: the engine holds the admission, the state still has the pending version.
    assertThat(state.engine().admission("w")).isPresent();
    applyNext();

    assertThat(sent).hasSize(1);
    assertThat(sent.get(0).getMetadata().getResourceVersion())
        .as("written on the version the engine decided on")
        .isEqualTo(w.getMetadata().getResourceVersion());
    assertThat(clusterQueueOf(state.latestWorkload("w").orElseThrow())).isEqualTo("cq");
    assertThat(state.engine().admission("w")).isPresent();
    // One Event for the admission, named for its transition.
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(events)
                    .extracting(EventRecorder.Pending::reason)
                    .containsExactly("Admitted"));
  }

  @Test
  void aConflictRollsTheTentativeAdmissionBack() throws Exception {
    state.workload(ClusterStateFaultsTest.pending("w", 0, "1"));
    answers.add(refused(409));
    assertThat(writer.apply(cycle(), state)).isFalse();
    applyNext();

    assertThat(state.engine().admission("w")).as("rolled back").isEmpty();
    assertThat(state.engine().isPending("w")).as("decided again by a later cycle").isTrue();
    // A conflict brings its own newer version: no timed retry.
    assertThat(writer.apply(NOTHING, state)).isFalse();
  }

  @Test
  void aThrottledAdmissionIsRolledBackAndAsksForATimedCycle() throws Exception {
    state.workload(ClusterStateFaultsTest.pending("w", 0, "1"));
    answers.add(refused(429));
    writer.apply(cycle(), state);
    applyNext();

    assertThat(state.engine().admission("w")).isEmpty();
    assertThat(writer.apply(NOTHING, state)).as("retry after a pause").isTrue();
  }

  @Test
  void aServerErrorIsReadBackAndAnAppliedWriteIsKept() throws Exception {
    Workload w = ClusterStateFaultsTest.pending("w", 0, "1");
    state.workload(w);
    answers.add(
        copy -> {
          // The server applied it, then failed to answer.
          readBackReturns(written(copy));
          throw new KubernetesClientException(
              new StatusBuilder().withCode(503).withMessage("unavailable").build());
        });
    writer.apply(cycle(), state);
    applyNext();

    assertThat(state.engine().admission("w")).as("the read-back found it written").isPresent();
    assertThat(clusterQueueOf(state.latestWorkload("w").orElseThrow())).isEqualTo("cq");
  }

  @Test
  void aServerErrorIsReadBackAndAWriteNotAppliedIsRolledBack() throws Exception {
    Workload w = ClusterStateFaultsTest.pending("w", 0, "1");
    state.workload(w);
    readBackReturns(w);
    answers.add(refused(500));
    writer.apply(cycle(), state);
    applyNext();

    assertThat(state.engine().admission("w")).as("the read-back found it unwritten").isEmpty();
    assertThat(state.engine().isPending("w")).isTrue();
  }

  @Test
  void withNoReplyAndNoReadBackTheQuotaStaysReservedUntilARead() throws Exception {
    Workload w = ClusterStateFaultsTest.pending("w", 0, "1");
    state.workload(w);
    reads.add(
        () -> {
          throw new KubernetesClientException("no route");
        });
    readBackReturns(w);
    answers.add(NO_REPLY);
    writer.apply(cycle(), state);
    applyNext();

    assertThat(state.engine().admission("w"))
        .as("outcome unknown, read-back failed: the quota stays reserved")
        .isPresent();
    // The next cycle's write-out reads it back again; this time the read shows it unwritten.
    assertThat(writer.apply(NOTHING, state)).isTrue();
    applyNext();
    assertThat(state.engine().admission("w")).isEmpty();
    assertThat(writer.apply(NOTHING, state)).as("resolved").isFalse();
  }

  @Test
  void aRefusedEvictionIsAskedAgainEveryCycleUntilWritten() throws Exception {
    Workload low =
        ClusterStateFaultsTest.admitted(
            ClusterStateFaultsTest.pending("low", 0, "4"), "4", "2026-01-01T01:00:00Z");
    state.workload(low);
    state.workload(ClusterStateFaultsTest.pending("high", 10, "4"));
    CycleResult first = cycle();
    assertThat(first.evictions()).extracting(e -> e.workloadUid()).containsExactly("low");

    answers.add(refused(409));
    writer.apply(first, state);
    applyNext();
    assertThat(
            StatusConditions.isTrue(
                state.latestWorkload("low").orElseThrow(), StatusConditions.EVICTED))
        .isFalse();

    CycleResult second = cycle();
    assertThat(second.evictions())
        .as("the engine expects the eviction until the Workload shows it")
        .extracting(e -> e.workloadUid())
        .containsExactly("low");
    writer.apply(second, state);
    applyNext();
    assertThat(
            StatusConditions.isTrue(
                state.latestWorkload("low").orElseThrow(), StatusConditions.EVICTED))
        .isTrue();
    assertThat(sent).hasSize(2);
    assertThat(cycle().evictions()).as("seen Evicted: not asked again").isEmpty();
  }

  @Test
  void aPreemptionAppliedThenAnswered5xxIsReadBackAsWrittenWithItsEventAndNotSentAgain()
      throws Exception {
    Workload low =
        ClusterStateFaultsTest.admitted(
            ClusterStateFaultsTest.pending("low", 0, "4"), "4", "2026-01-01T01:00:00Z");
    state.workload(low);
    state.workload(ClusterStateFaultsTest.pending("high", 10, "4"));
    CycleResult first = cycle();
    assertThat(first.evictions()).extracting(e -> e.workloadUid()).containsExactly("low");
    answers.add(
        copy -> {
          // Applied by the API server, then a 504 (or a 500) instead of its reply.
          readBackReturns(written(copy));
          throw new KubernetesClientException(
              new StatusBuilder().withCode(504).withMessage("Timeout").build());
        });
    writer.apply(first, state);
    applyNext();

    assertThat(
            StatusConditions.isTrue(
                state.latestWorkload("low").orElseThrow(), StatusConditions.EVICTED))
        .as("the read-back found it written")
        .isTrue();
    awaitEvents("Preempted");
    assertThat(cycle().evictions()).as("seen Evicted: not asked again").isEmpty();
    assertThat(sent).as("sent once").hasSize(1);
  }

  @Test
  void anEvictionAnswered5xxThatWasNotAppliedIsAskedAgainWithoutAnEvent() throws Exception {
    Workload low =
        ClusterStateFaultsTest.admitted(
            ClusterStateFaultsTest.pending("low", 0, "4"), "4", "2026-01-01T01:00:00Z");
    state.workload(low);
    state.workload(ClusterStateFaultsTest.pending("high", 10, "4"));
    CycleResult first = cycle();
    readBackReturns(low);
    answers.add(refused(500));
    writer.apply(first, state);
    applyNext();

    assertThat(events).as("nothing was evicted").isEmpty();
    CycleResult second = cycle();
    assertThat(second.evictions())
        .as("not applied: asked again")
        .extracting(e -> e.workloadUid())
        .containsExactly("low");
    writer.apply(second, state);
    applyNext();
    awaitEvents("Preempted");
    assertThat(sent).hasSize(2);
  }

  /** The Events recorded are exactly these (they are written off the writer's thread). */
  private void awaitEvents(String... reasons) {
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(events)
                    .extracting(EventRecorder.Pending::reason)
                    .containsExactly(reasons));
  }

  @Test
  void anAdmissionTheWritersHaveNoRoomForIsRolledBack() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    // Four writes of other objects fill the pool (two on the wire, two waiting).
    for (int i = 0; i < 4; i++) {
      pool.submit(
          "other-" + (i % 2),
          () ->
              () -> {
                try {
                  release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                return s -> {};
              });
    }
    state.workload(ClusterStateFaultsTest.pending("w", 0, "1"));
    assertThat(writer.apply(cycle(), state)).as("retry once there is room").isTrue();
    assertThat(state.engine().admission("w")).isEmpty();
    assertThat(state.engine().isPending("w")).isTrue();
    release.countDown();
    for (int i = 0; i < 4; i++) {
      applyNext();
    }
    writer.apply(cycle(), state);
    applyNext();
    assertThat(clusterQueueOf(state.latestWorkload("w").orElseThrow())).isEqualTo("cq");
  }

  @Test
  void aWatchEventDuringTheAdmissionWriteDoesNotUndoIt() throws Exception {
    Workload w = ClusterStateFaultsTest.pending("w", 0, "1");
    state.workload(w);
    CountDownLatch release = new CountDownLatch(1);
    answers.add(
        copy -> {
          try {
            release.await(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return written(copy);
        });
    writer.apply(cycle(), state);
    // The event of another version (here: the same pending version again, a resync) arrives
    // while the write is out: held, and applied after the result, which is newer.
    state.workload(Serialization.clone(w));
    assertThat(state.engine().admission("w")).isPresent();
    release.countDown();
    applyNext();
    assertThat(state.engine().admission("w")).isPresent();
    assertThat(clusterQueueOf(state.latestWorkload("w").orElseThrow())).isEqualTo("cq");
  }

  // Stopping: the loop around this writer, closed while a write is on the wire.

  @Test
  void aWorkloadsVersionsWaitingForTheLoopAreOneObservationOfTheNewest() throws Exception {
    AdmissionLoop loop = unstartedLoop();
    // Far over the queue's quota: it stays pending whatever the engine decides.
    Workload first = ClusterStateFaultsTest.pending("w", 0, "1000");
    Workload second = ClusterStateFaultsTest.pending("w", 1, "1000");
    Workload third = ClusterStateFaultsTest.pending("w", 2, "1000");
    loop.submitWorkload("w", first);
    loop.submitWorkload("w", second);
    loop.submitWorkload("w", third);
    loop.submitWorkload("other", ClusterStateFaultsTest.pending("other", 0, "1000"));

    assertThat(loop.inboxSize()).as("one observation per Workload").isEqualTo(2);
    assertThat(loop.queuedWorkloads()).isEqualTo(2);

    loop.start();
    try {
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(10))
          .until(() -> loop.queuedWorkloads() == 0 && state.latestWorkload("w").isPresent());
      assertThat(state.latestWorkload("w").orElseThrow().getSpec().priority).isEqualTo(2);
      // Taken by the loop: the next version queues anew.
      loop.submitWorkload("w", ClusterStateFaultsTest.pending("w", 3, "1000"));
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(10))
          .until(() -> state.latestWorkload("w").orElseThrow().getSpec().priority == 3);
    } finally {
      loop.close();
    }
  }

  /** The loop, on caches that have synced with nothing in them (the state is fed directly). */
  private AdmissionLoop loop() throws InterruptedException {
    return unstartedLoop().start();
  }

  private AdmissionLoop unstartedLoop() throws InterruptedException {
    dev.berth.operator.informers.InformerCaches caches =
        mock(dev.berth.operator.informers.InformerCaches.class);
    when(caches.awaitSynced(any())).thenReturn(true);
    when(caches.isSynced()).thenReturn(true);
    when(caches.list(any())).thenReturn(List.of());
    return new AdmissionLoop(state.engine(), state, new Bootstrap(caches, (o, e) -> true), writer);
  }

  /** A running loop whose admission of "w" is on the wire, its reply held until {@code release}. */
  private AdmissionLoop admittingW(CountDownLatch release) throws InterruptedException {
    CountDownLatch onWire = new CountDownLatch(1);
    answers.add(
        copy -> {
          onWire.countDown();
          try {
            release.await(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return written(copy);
        });
    AdmissionLoop loop = loop();
    loop.submit(s -> s.workload(ClusterStateFaultsTest.pending("w", 0, "1")));
    assertThat(onWire.await(10, TimeUnit.SECONDS)).as("the admission is on the wire").isTrue();
    return loop;
  }

  /** Closes the loop on another thread and returns once it has begun (no cycle starts any more). */
  private java.util.concurrent.CompletableFuture<Void> closing(AdmissionLoop loop) {
    var closed = java.util.concurrent.CompletableFuture.runAsync(loop::close);
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(10))
        .until(() -> !loop.isLive());
    return closed;
  }

  /**
   * Queues, on the loop thread, a write of {@code key} behind the one on the wire; it logs "sent"
   * and "applied" to {@code log}. Returns once it is queued.
   */
  private void queueBehind(AdmissionLoop loop, String key, List<String> log) throws Exception {
    CountDownLatch queued = new CountDownLatch(1);
    loop.submit(
        s -> {
          assertThat(pool.busy(key)).as("a write of %s is on the wire", key).isTrue();
          pool.submit(
              key,
              () ->
                  () -> {
                    log.add("sent");
                    return r -> log.add("applied");
                  });
          queued.countDown();
        });
    assertThat(queued.await(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void anObservationsFutureCompletesOnlyOnceTheWritesBeforeItAreBack() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AdmissionLoop loop = admittingW(release);
    CountDownLatch applied = new CountDownLatch(1);
    var seenWhileWriting = loop.submit(s -> applied.countDown());
    assertThat(applied.await(10, TimeUnit.SECONDS)).isTrue();
    // Applied in a later cycle than the one above, so that one's completion step has run.
    CountDownLatch later = new CountDownLatch(1);
    var seenLater = loop.submit(s -> later.countDown());
    assertThat(later.await(10, TimeUnit.SECONDS)).isTrue();

    assertThat(seenWhileWriting)
        .as("decided while the admission of w was on the wire: not complete before it is back")
        .isNotDone();
    release.countDown();
    seenWhileWriting.get(10, TimeUnit.SECONDS);
    seenLater.get(10, TimeUnit.SECONDS);
    assertThat(clusterQueueOf(state.latestWorkload("w").orElseThrow()))
        .as("the admission's result was applied before the futures completed")
        .isEqualTo("cq");
    loop.close();
  }

  @Test
  void anAdmissionWrittenWhileTheLoopStopsIsAppliedAndGetsItsEvent() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AdmissionLoop loop = admittingW(release);

    var closed = closing(loop);
    release.countDown();
    closed.get(15, TimeUnit.SECONDS);
    // As the operator stops: the Events still waiting are written before the client closes.
    recorder.close(java.time.Duration.ofSeconds(5));

    assertThat(clusterQueueOf(state.latestWorkload("w").orElseThrow()))
        .as("the written admission's result was applied")
        .isEqualTo("cq");
    assertThat(events).extracting(EventRecorder.Pending::reason).containsExactly("Admitted");
  }

  @Test
  void aWriteQueuedBehindAnotherOfItsObjectIsSentAtStop() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AdmissionLoop loop = admittingW(release);
    List<String> after = new java.util.concurrent.CopyOnWriteArrayList<>();
    queueBehind(loop, "w", after);

    var closed = closing(loop);
    release.countDown();
    closed.get(15, TimeUnit.SECONDS);

    assertThat(after).containsExactly("sent", "applied");
  }

  @Test
  void onceTheLeaseIsLostNothingMoreIsDecidedOrSentButWrittenAdmissionsGetTheirEvent()
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AdmissionLoop loop = admittingW(release);
    List<String> after = new java.util.concurrent.CopyOnWriteArrayList<>();
    queueBehind(loop, "w", after);

    loop.fence();
    // Observed after the fence: applied, never decided.
    var seen = loop.submit(s -> s.workload(ClusterStateFaultsTest.pending("w2", 0, "1")));
    release.countDown();
    seen.get(10, TimeUnit.SECONDS);
    loop.close();
    recorder.close(java.time.Duration.ofSeconds(5));

    assertThat(sent).as("only the admission that was already on the wire").hasSize(1);
    assertThat(after).as("the write queued behind it was dropped").isEmpty();
    assertThat(state.engine().admission("w2")).isEmpty();
    assertThat(state.engine().isPending("w2")).isTrue();
    assertThat(clusterQueueOf(state.latestWorkload("w").orElseThrow())).isEqualTo("cq");
    assertThat(events).extracting(EventRecorder.Pending::reason).containsExactly("Admitted");
  }
}
