package dev.berth.operator.status;

import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.engine.PendingStatus;
import dev.berth.engine.model.Explanation;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.admission.ClusterState;
import dev.berth.operator.admission.ClusterView;
import dev.berth.operator.admission.StatusConditions;
import dev.berth.operator.admission.WorkloadPhase;
import dev.berth.operator.admission.WritePool;
import dev.berth.operator.admission.WriteRate;
import dev.berth.operator.events.EventRecorder;
import dev.berth.operator.kube.Copies;
import dev.berth.operator.kube.StatusWrite;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After cycles, gives every pending Workload its {@code QuotaReserved=False} condition: the
 * engine's reason and its one-line summary (the whole explanation goes into an Event when the
 * reason changes). A pass runs at most once per {@link #PASS_EVERY} (per {@link
 * #BACKLOG_PASS_EVERY} while changes wait for the shared budget), however many cycles run
 * meanwhile, and looks at every pending workload the engine knows, so inadmissible workloads
 * (missing LocalQueue, namespace outside the selector, ClusterQueue held or terminating, behind a
 * StrictFIFO head), which no cycle evaluates, get their reason too.
 *
 * <p>Writes carry news only, and few of them: a condition is written when its reason or message
 * changed, carrying the resourceVersion, sent by the loop's {@link WritePool} (never on the loop
 * thread). A workload's first reason waits until it has been pending {@link #FIRST_AFTER} (on a
 * busy cluster most workloads are admitted before that and never need one); per workload at most
 * once per {@link #REASON_EVERY} when the reason changes and once per {@link #MESSAGE_EVERY} when
 * only the numbers in the message do; and all pending workloads together share a budget of {@code
 * BERTH_PENDING_WRITE_QPS} writes a second, spent on changed reasons before changed numbers and on
 * the longest waiting first. A change held back is written when it is due; the loop is poked then,
 * so no event is needed for it.
 */
public final class PendingConditions implements Consumer<AdmissionLoop.CycleOutcome> {
  private static final Logger log = LoggerFactory.getLogger(PendingConditions.class);
  static final Duration FIRST_AFTER = Duration.ofSeconds(2);
  static final Duration REASON_EVERY = Duration.ofSeconds(1);
  static final Duration MESSAGE_EVERY = Duration.ofSeconds(30);

  /**
   * At most one pass per this, whatever the number of cycles. A pass over every pending workload
   * costs the same whatever the engine decided meanwhile, and the shared budget lets only a handful
   * of writes a second out: a pass after each of 100 cycles a second was half the operator's CPU on
   * the baseline load, and passes every 200 ms over the cycle's workloads plus a sweep of all of
   * them each second were still a tenth of it (issue 20's profiles). The reasons of the cycles
   * between two passes are not lost: the engine holds each workload's latest, and the cycle before
   * a pass works them out ({@link #passDue}). A first reason waits {@link #FIRST_AFTER} anyway, so
   * this delays none by more than a second.
   */
  static final Duration PASS_EVERY = Duration.ofSeconds(1);

  /**
   * The pass interval while changes wait for the shared budget: the budget holds two seconds of
   * writes (its burst), so a pass every two seconds sends as many as one every second, and each
   * pass looks at every pending workload to choose a handful. On the baseline load (10,000 pending,
   * 5 writes a second) the pass was 8 % of the operator's CPU (issue 20's profile).
   */
  static final Duration BACKLOG_PASS_EVERY = Duration.ofSeconds(2);

  private final KubernetesClient client;
  private final StatusWrite statusWrite;
  private final ClusterView state;
  private final EventRecorder events;
  private final Clock clock;
  private final WakeUp wakeUp;
  private final Counter writes;
  private final StartEstimates estimates;
  private final WritePool pool;

  /** The budget all pending workloads share (BERTH_PENDING_WRITE_QPS). */
  private final WriteRate budget;

  /** When each pending workload was first seen pending by this publisher. */
  private final Map<String, Instant> pendingSince = new HashMap<>();

  /** When each pending workload's condition was last written by us. */
  private final Map<String, Instant> lastWrite = new HashMap<>();

  /** Changes held back by a rate bound: when each becomes due. */
  private final Map<String, Instant> due = new HashMap<>();

  /** When the next pass may run: {@link #PASS_EVERY} after the last, or while a backlog waits. */
  private Instant nextPass = Instant.EPOCH;

  /** Which due change goes first: a changed reason, then the one pending longest. */
  private static final Comparator<Candidate> ORDER =
      Comparator.comparing((Candidate c) -> !c.reasonChanged()).thenComparing(Candidate::since);

  /** A change due now, waiting for the shared budget; {@code summary} null until it is sent. */
  private record Candidate(
      PendingStatus pending,
      Workload latest,
      String summary,
      boolean reasonChanged,
      Instant since) {}

  public PendingConditions(
      KubernetesClient client,
      ClusterView state,
      EventRecorder events,
      Clock clock,
      Consumer<Duration> pokeAfter,
      MeterRegistry registry,
      StartEstimates estimates,
      WritePool pool,
      double writesPerSecond,
      StatusWrite statusWrite) {
    this.statusWrite = statusWrite;
    this.estimates = estimates;
    this.client = client;
    this.state = state;
    this.events = events;
    this.clock = clock;
    this.wakeUp = new WakeUp(pokeAfter);
    this.pool = pool;
    this.budget = new WriteRate(writesPerSecond, (int) Math.max(1, Math.ceil(writesPerSecond * 2)));
    this.writes =
        Counter.builder("berth_pending_condition_writes_total")
            .description("Status writes of pending Workloads' QuotaReserved=False condition")
            .register(registry);
  }

  /**
   * Whether a cycle that ends now brings a pass, and so needs its pending reasons (the loop asks
   * before each cycle: the cycles between two passes are spared working them out).
   */
  public boolean passDue() {
    return !clock.instant().isBefore(nextPass);
  }

  @Override
  public void accept(AdmissionLoop.CycleOutcome outcome) {
    Instant now = clock.instant();
    if (now.isBefore(nextPass)) {
      pokeAt(nextPass, now);
      return;
    }
    nextPass = now.plus(PASS_EVERY);
    Map<String, PendingStatus> statuses = new HashMap<>(outcome.result().pendingReasons());
    for (PendingStatus s : state.engineStatus().pendingStatuses()) {
      statuses.putIfAbsent(s.workloadUid(), s);
    }
    // Forget workloads that are no longer pending (admitted, finished, deleted).
    pendingSince.keySet().removeIf(uid -> !statuses.containsKey(uid));
    lastWrite.keySet().removeIf(uid -> !statuses.containsKey(uid));
    due.keySet().removeIf(uid -> !statuses.containsKey(uid));
    List<Candidate> candidates = new ArrayList<>();
    for (PendingStatus s : statuses.values()) {
      try {
        Candidate c = candidate(s, now);
        if (c != null) {
          candidates.add(c);
        }
      } catch (RuntimeException e) {
        log.warn("pending condition of {} not written: {}", s.workloadUid(), e.toString());
      }
    }
    long nanos = System.nanoTime();
    // Only as many as the budget lets out now are chosen, changed reasons first, then the longest
    // waiting; the rest are due when it refills.
    FirstInOrder.Split<Candidate> split =
        FirstInOrder.split(candidates, budget.available(nanos), ORDER);
    List<Candidate> held = new ArrayList<>(split.rest());
    for (Candidate c : split.first()) {
      if (budget.tryAcquire(nanos)) {
        send(c, now);
      } else {
        held.add(c);
      }
    }
    if (!held.isEmpty()) {
      // Due at the next pass: none is sent before it, however soon the budget refills.
      nextPass = now.plus(BACKLOG_PASS_EVERY);
      for (Candidate rest : held) {
        due.put(rest.pending().workloadUid(), nextPass);
      }
    }
    Instant next = null;
    for (Instant when : due.values()) {
      next = next == null || when.isBefore(next) ? when : next;
    }
    if (next != null && next.isBefore(nextPass)) {
      next = nextPass;
    }
    if (next != null) {
      pokeAt(next, now);
    }
  }

  private void pokeAt(Instant when, Instant now) {
    wakeUp.at(when, now);
  }

  /** The change to write now, or null (no change, or held back by its own rate bound). */
  private Candidate candidate(PendingStatus pending, Instant now) {
    String uid = pending.workloadUid();
    Workload latest = state.latestWorkload(uid).orElse(null);
    WorkloadPhase phase = state.phase(uid).orElse(null);
    if (latest == null
        || phase instanceof WorkloadPhase.Finished
        || phase.reservation().isPresent()
        || state.admission(uid).isPresent()) {
      return null;
    }
    Instant since = pendingSince.computeIfAbsent(uid, k -> now);
    Instant last = lastWrite.get(uid);
    if (last == null && now.isBefore(since.plus(FIRST_AFTER))) {
      // Not due whatever its reason says: most workloads are admitted before their first reason.
      due.put(uid, since.plus(FIRST_AFTER));
      return null;
    }
    String reason = pending.reason().name();
    Condition current =
        latest.getStatus() == null
            ? null
            : StatusConditions.find(latest.getStatus().conditions, StatusConditions.QUOTA_RESERVED)
                .orElse(null);
    boolean reasonChanged =
        current == null || !"False".equals(current.status) || !reason.equals(current.reason);
    // A changed reason is news whatever the text: the summary is built only if it is sent. On a
    // large cluster most pending workloads have no reason written yet and a handful a second get
    // one, so building the summary of each at every pass was the pass's main cost.
    String summary = reasonChanged ? null : summary(latest, pending, estimates.note(uid));
    if (!reasonChanged && Objects.equals(summary, current.message)) {
      due.remove(uid);
      return null;
    }
    Instant allowed =
        last == null
            ? since.plus(FIRST_AFTER)
            : last.plus(reasonChanged ? REASON_EVERY : MESSAGE_EVERY);
    if (now.isBefore(allowed) || pool.busy(uid)) {
      due.put(uid, now.isBefore(allowed) ? allowed : now.plus(REASON_EVERY));
      return null;
    }
    due.remove(uid);
    return new Candidate(pending, latest, summary, reasonChanged, since);
  }

  /** Hands the write to the pool, prepared from the Workload as known when it goes out. */
  private void send(Candidate c, Instant now) {
    String uid = c.pending().workloadUid();
    String reason = c.pending().reason().name();
    String summary =
        c.summary() != null ? c.summary() : summary(c.latest(), c.pending(), estimates.note(uid));
    lastWrite.put(uid, now);
    boolean queued =
        pool.submit(
            uid,
            () -> {
              Workload latest = state.latestWorkload(uid).orElse(null);
              if (latest == null
                  || StatusConditions.hasQuotaReserved(latest)
                  || state.admission(uid).isPresent()) {
                return null; // admitted meanwhile: the admission's write says it all
              }
              Workload copy = Copies.forStatus(latest);
              WorkloadStatus status =
                  copy.getStatus() == null ? new WorkloadStatus() : copy.getStatus();
              copy.setStatus(status);
              StatusConditions.set(
                  status, StatusConditions.QUOTA_RESERVED, false, reason, summary, now);
              return () -> write(copy, c);
            });
    if (!queued) {
      lastWrite.remove(uid);
      due.put(uid, now.plus(REASON_EVERY));
    }
  }

  /** Writer thread: the status write; its reply (and Event) for the loop thread. */
  private Consumer<ClusterState> write(Workload copy, Candidate c) {
    try {
      Workload written = statusWrite.replace(copy);
      return s -> {
        s.pendingConditionWritten(written);
        writes.increment();
        if (c.reasonChanged()) {
          events.normal(
              written, "Pending", c.pending().reason().name() + ": " + c.pending().message());
        }
      };
    } catch (KubernetesClientException e) {
      // 409: a newer version is on its way; its cycle publishes again. Otherwise the next pass
      // does.
      log.debug(
          "pending condition of {}/{} not written ({})",
          copy.getMetadata().getNamespace(),
          copy.getMetadata().getName(),
          e.getCode());
      return s -> {};
    }
  }

  /**
   * The engine's summary, prefixed for a requeued workload with why it was evicted, and ending with
   * the estimated start ({@link StartEstimates#note}, at most 79 characters), which is kept whole:
   * the summary is shortened to make room for it.
   */
  static String summary(Workload wl, PendingStatus pending, String estimate) {
    Condition requeued =
        wl.getStatus() == null
            ? null
            : StatusConditions.find(wl.getStatus().conditions, StatusConditions.REQUEUED)
                .filter(Condition::isTrue)
                .orElse(null);
    String text =
        requeued == null
            ? pending.summary()
            : "requeued after " + requeued.reason + ": " + pending.summary();
    int room = Explanation.SUMMARY_LIMIT - estimate.length();
    if (text.length() > room) {
      text = text.substring(0, Math.max(0, room - 1)) + "\u2026";
    }
    return Explanation.oneLine(text + estimate);
  }

  /** For tests and the benchmark: the pending workloads whose next write is held back. */
  int heldBack() {
    return due.size();
  }
}
