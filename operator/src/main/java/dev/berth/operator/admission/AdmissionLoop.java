package dev.berth.operator.admission;

import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.CycleResult;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that owns the admission engine. Reconcilers submit what they observed; the loop
 * applies every waiting observation, runs one admission cycle and hands its decisions to the {@link
 * DecisionWriter}, whose writers send them while the next cycle runs on what is already known (see
 * {@link WritePool}); their results come back as observations. It runs only when something
 * happened, or when a failed write, a failed cycle or a failed bootstrap asked to be tried again
 * after a back-off.
 *
 * <p>Before the first cycle the loop rebuilds the engine from the informers' caches once they have
 * all synced ({@link Bootstrap}), so a restarted operator knows every admitted workload before it
 * admits anything new. The first observation comes from a reconciler, and reconcilers run only on
 * the Lease holder, so only the leader bootstraps.
 */
public final class AdmissionLoop implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AdmissionLoop.class);

  /** A cycle (deciding and writing) running longer than this means the loop is stuck. */
  static final Duration STUCK_AFTER = Duration.ofSeconds(60);

  private static final Duration STOP_WAIT = Duration.ofSeconds(10);

  /**
   * A cycle starts at least this long after the one before: what arrives meanwhile waits and is
   * decided on together. Each cycle costs the same fixed work whatever it decides (the engine's
   * pass over the queue heads, the publishers' pass over every queue), and under load the writers'
   * results alone arrive a few hundred a second, one cycle each: the 15,000-workload baseline ran
   * 342,000 cycles, 1,300 a second, most of the operator's CPU. Ten milliseconds bounds that to 100
   * a second and delays a decision by at most as much; an observation after a quiet spell is
   * decided at once.
   */
  static final Duration CYCLE_SPACING = Duration.ofMillis(10);

  private final AdmissionEngine engine;
  private final ClusterState state;
  private final Bootstrap bootstrap;
  private final DecisionWriter writer;
  private final List<Consumer<CycleOutcome>> listeners = new ArrayList<>();
  private volatile BooleanSupplier reasonsWanted = () -> true;
  private final BlockingQueue<Observation> inbox = new LinkedBlockingQueue<>();
  private final Thread thread;
  private final ScheduledExecutorService retryTimer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "berth-admission-retry");
            t.setDaemon(true);
            return t;
          });
  private volatile boolean running = true;

  /** The Lease is lost: no cycle runs (see {@link #fence}). */
  private volatile boolean fenced;

  /** System.nanoTime() by which {@link #close} wants the drain done. */
  private volatile long stopBy;

  private volatile boolean bootstrapped;

  /**
   * {@link #livenessClock} when the current bootstrap or cycle began; {@link #busy} false while
   * waiting.
   */
  private volatile long busySince;

  private volatile boolean busy;

  /** The time liveness is judged by: System.nanoTime(), or a test's clock. */
  private final LongSupplier livenessClock;

  private int failures;

  /** System.nanoTime() when the last cycle began. */
  private long lastCycleStart = System.nanoTime() - CYCLE_SPACING.toNanos();

  /**
   * The newest version of each Workload, by uid, whose observation waits in the inbox: a newer one
   * replaces it there rather than queue behind it (see {@link #submitWorkload}).
   */
  private final ConcurrentHashMap<String, Workload> newestWorkloads = new ConcurrentHashMap<>();

  private record Observation(Consumer<ClusterState> apply, CompletableFuture<Void> decided) {}

  /**
   * The futures of observations decided on by a cycle whose writes (up to {@code mark}) are still
   * out. Only the futures: an observation's function holds the object it carries (a Pod, a
   * ClusterQueue), which is applied and no longer needed.
   */
  private record AwaitingWrites(long mark, List<CompletableFuture<Void>> futures) {}

  /**
   * Oldest first, marks rising (the pool's sequence only grows), so the ones settled are at the
   * front: a cycle looks at no more of them than it completes, plus one. Under load the pool is
   * never empty and its oldest write may wait behind a rate bound, so a list scanned whole at every
   * cycle grew to thousands and became a third of the operator's CPU (issue 20's profile).
   */
  private final ArrayDeque<AwaitingWrites> awaitingWrites = new ArrayDeque<>();

  public AdmissionLoop(
      AdmissionEngine engine, ClusterState state, Bootstrap bootstrap, DecisionWriter writer) {
    this(engine, state, bootstrap, writer, System::nanoTime);
  }

  /** With the clock {@link #isLive} measures a cycle's time by (in nanoseconds). */
  AdmissionLoop(
      AdmissionEngine engine,
      ClusterState state,
      Bootstrap bootstrap,
      DecisionWriter writer,
      LongSupplier livenessClock) {
    this.livenessClock = livenessClock;
    this.engine = engine;
    this.state = state;
    this.bootstrap = bootstrap;
    this.writer = writer;
    // The writers' results come back as observations: applied on this thread, before a cycle.
    writer.pool().deliverTo(this::submit);
    this.thread = new Thread(this::run, "berth-admission-loop");
    this.thread.setDaemon(true);
  }

  public AdmissionLoop start() {
    thread.start();
    return this;
  }

  /** Called with the outcome of every cycle, on the loop thread (status and metrics publishers). */
  public void onCycle(Consumer<CycleOutcome> listener) {
    listeners.add(listener);
  }

  /**
   * Whether a cycle starting now must work out its pending reasons ({@link
   * CycleResult#pendingReasons()}): only the one reader of them (PendingConditions) knows when it
   * next reads them. Without this, every cycle does.
   */
  public void reasonsWhen(BooleanSupplier wanted) {
    this.reasonsWanted = wanted;
  }

  /**
   * Queue an observation; it is applied on the loop thread before the next cycle. The future
   * completes once a cycle that saw it has written its decisions (or has failed).
   */
  public CompletableFuture<Void> submit(Consumer<ClusterState> observation) {
    CompletableFuture<Void> decided = new CompletableFuture<>();
    inbox.add(new Observation(observation, decided));
    return decided;
  }

  /**
   * Queue a Workload's version for the engine. While an earlier version of the same Workload still
   * waits in the inbox, this one takes its place there instead of queueing behind it: the engine
   * only needs the newest, and a loop that lags a busy API server would otherwise hold a copy of
   * every version (about four a Workload: created, pending, admitted, finished), the bulk of the
   * operator's heap at scale. Only the order of a Workload's versions among other objects' changes
   * moves, and the informers give no such order anyway (each kind is its own watch).
   */
  public void submitWorkload(String uid, Workload version) {
    if (newestWorkloads.put(uid, version) == null) {
      submit(
          state -> {
            Workload newest = newestWorkloads.remove(uid);
            if (newest != null) {
              state.workload(newest);
            }
          });
    }
  }

  /** Observations waiting for the loop. */
  int inboxSize() {
    return inbox.size();
  }

  /** Versions held by {@link #submitWorkload} for the inbox: at most one per Workload. */
  int queuedWorkloads() {
    return newestWorkloads.size();
  }

  /** Ask for a cycle without a new observation (e.g. after a write failed and was rolled back). */
  public void poke() {
    submit(s -> {});
  }

  /** Ask for a cycle after a delay (a status write held back by its rate bound falls due). */
  public void pokeAfter(Duration delay) {
    retryLater(delay);
  }

  public boolean isBootstrapped() {
    return bootstrapped;
  }

  /**
   * The loop thread runs and is not stuck: it waits for work, or its current bootstrap or cycle has
   * run for less than {@link #STUCK_AFTER}.
   */
  public boolean isLive() {
    return thread.isAlive()
        && running
        && (!busy || livenessClock.getAsLong() - busySince < STUCK_AFTER.toNanos());
  }

  private void run() {
    List<Observation> batch = new ArrayList<>();
    Observation leftover = null;
    while (running) {
      try {
        Observation first = inbox.poll(1, TimeUnit.SECONDS);
        if (first == null) {
          continue;
        }
        if (!running) {
          leftover = first; // perhaps a write's result: the drain applies it
          break;
        }
        batch.add(first);
        if (!bootstrapped && !awaitInformers()) {
          break;
        }
        long early = lastCycleStart + CYCLE_SPACING.toNanos() - System.nanoTime();
        if (early > 0) {
          TimeUnit.NANOSECONDS.sleep(early);
        }
        inbox.drainTo(batch);
        busySince = livenessClock.getAsLong();
        busy = true;
        if (!bootstrapped) {
          // Everything already in the cluster, admitted workloads first, before any decision.
          bootstrap.load(state);
          state.bootstrapped();
          bootstrapped = true;
          log.info("admission loop: rebuilt state from the API server; admitting from now on");
        }
        for (Observation observation : batch) {
          try {
            observation.apply().accept(state);
          } catch (RuntimeException e) {
            log.warn("admission loop: observation failed: {}", e.toString(), e);
          }
        }
        if (!fenced) {
          cycle();
        }
        failures = 0;
        completeWhenWritten(batch);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (RuntimeException e) {
        if (!running) {
          break;
        }
        // The engine undid the failed cycle; a failed bootstrap is simply done again. The batch
        // was applied (observations are idempotent), so its futures complete; retry later.
        Duration delay = backoff(++failures);
        log.error(
            "admission loop: {} failed; trying again in {} s",
            bootstrapped ? "cycle" : "bootstrap",
            delay.toSeconds(),
            e);
        if (bootstrapped) {
          complete(batch);
        }
        retryLater(delay);
      } finally {
        busy = false;
        if (bootstrapped) {
          batch.clear();
        }
      }
    }
    if (bootstrapped && !Thread.currentThread().isInterrupted()) {
      try {
        drain(leftover);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } else if (leftover != null) {
      batch.add(leftover);
    }
    for (Observation o : batch) {
      o.decided().cancel(false);
    }
    for (AwaitingWrites w : awaitingWrites) {
      w.futures().forEach(f -> f.cancel(false));
    }
    log.info("admission loop stopped");
  }

  /**
   * After the last cycle, until {@link #stopBy}: applies what comes back (the writes' results, and
   * any observation meanwhile) without deciding anything new, until every write the pool holds is
   * sent and its result applied. A write queued behind another of its object is prepared only once
   * that one's result is applied, and an admission's Event is recorded only when its result is: a
   * loop that stopped at once lost both (issue 20: Workloads admitted around a rollout restart with
   * no Admitted Event). Once the Lease is lost the pool sends nothing more ({@link #fence}), so the
   * drain only applies the results of what was already on the wire.
   */
  private void drain(Observation leftover) throws InterruptedException {
    WritePool pool = writer.pool();
    int held = pool.outstanding();
    long started = System.nanoTime();
    Observation next = leftover;
    while (true) {
      if (next != null) {
        try {
          next.apply().accept(state);
        } catch (RuntimeException e) {
          log.warn("admission loop: observation failed while stopping: {}", e.toString(), e);
        }
        // Applied, but no cycle decides on it any more.
        next.decided().cancel(false);
      }
      long left = stopBy - System.nanoTime();
      if (pool.outstanding() == 0 || left <= 0) {
        break;
      }
      next = inbox.poll(left, TimeUnit.NANOSECONDS);
    }
    completeWhenWritten(List.of());
    long ms = (System.nanoTime() - started) / 1_000_000;
    if (pool.outstanding() > 0) {
      log.warn(
          "admission loop: stopped with {} of {} writes not sent or not back after {} ms; the"
              + " next leader decides them again",
          pool.outstanding(),
          held,
          ms);
    } else if (held > 0) {
      log.info(
          "admission loop: {} writes settled at stop in {} ms ({})",
          held,
          ms,
          fenced ? "the Lease lost: those not yet sent were dropped" : "sent");
    }
  }

  /**
   * A batch's futures complete once the writes of the cycle that saw it are back, so that a caller
   * who waits on one (a terminating ClusterQueue's finalizer) sees those writes applied.
   */
  private void completeWhenWritten(List<Observation> batch) {
    WritePool pool = writer.pool();
    if (!batch.isEmpty()) {
      long mark = pool.lastSubmitted();
      AwaitingWrites last = awaitingWrites.peekLast();
      List<CompletableFuture<Void>> futures;
      if (last != null && last.mark() == mark) {
        futures = last.futures(); // a cycle that submitted nothing new waits with the one before
      } else {
        futures = new ArrayList<>(batch.size());
        awaitingWrites.addLast(new AwaitingWrites(mark, futures));
      }
      for (Observation o : batch) {
        futures.add(o.decided());
      }
    }
    while (!awaitingWrites.isEmpty() && pool.settled(awaitingWrites.peekFirst().mark())) {
      awaitingWrites.pollFirst().futures().forEach(f -> f.complete(null));
    }
  }

  /**
   * Without leader election a reconciler may start while other informers still list; the bootstrap
   * waits for all of them (JOSDK's start fails the operator if one does not sync in time). Not
   * counted as busy: the wait is the informers', bounded by JOSDK's cache sync timeout.
   */
  private boolean awaitInformers() throws InterruptedException {
    while (running) {
      if (bootstrap.awaitSynced(Duration.ofSeconds(1))) {
        return true;
      }
    }
    return false;
  }

  private static void complete(List<Observation> batch) {
    for (Observation o : batch) {
      o.decided().complete(null);
    }
  }

  /** 1, 2, 4 ... 30 seconds. */
  static Duration backoff(int failures) {
    return Duration.ofSeconds(Math.min(30, 1L << Math.min(5, Math.max(0, failures - 1))));
  }

  private void retryLater(Duration delay) {
    try {
      retryTimer.schedule(this::poke, delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException stopped) {
      // Closing: nothing to retry.
    }
  }

  private void cycle() {
    long started = System.nanoTime();
    lastCycleStart = started;
    long now = System.currentTimeMillis();
    // Requeued workloads whose backoff is over compete again; wake up for the next one, or for
    // the next maximum execution time to run out.
    state.releaseDue(now).ifPresent(this::wakeAt);
    sampleUsageIfDue(now);
    CycleResult result = engine.runCycle(now, reasonsWanted.getAsBoolean());
    if (result.protectionEndsAt() != Long.MAX_VALUE) {
      // A preemptor waits for a victim's minimum runtime to end; nothing else need happen by then
      // to bring a cycle, so wake for it.
      wakeAt(result.protectionEndsAt());
    }
    boolean retry = writer.apply(result, state);
    CycleOutcome outcome = new CycleOutcome(result, System.nanoTime() - started);
    for (Consumer<CycleOutcome> listener : listeners) {
      try {
        listener.accept(outcome);
      } catch (RuntimeException e) {
        log.warn("admission loop: publishing failed: {}", e.toString(), e);
      }
    }
    if (retry) {
      // A write failed on the API server's side, or an eviction is still to be written: decide
      // again shortly, not at once, so an unavailable API server is not hammered.
      retryLater(Duration.ofSeconds(1));
    }
  }

  /** When admission fair sharing next samples the LocalQueues' usage (epoch millis). */
  private long nextUsageSample = Long.MIN_VALUE;

  /**
   * Every usageSamplingInterval, the first cycle folds what each LocalQueue of a ClusterQueue with
   * admission fair sharing runs into its decayed usage (the first cycle after start-up at once, so
   * the time the operator was down decays what the status kept), and wakes for the next sample.
   */
  private void sampleUsageIfDue(long now) {
    if (now >= nextUsageSample) {
      state.localQueuesSampled(engine.sampleLocalQueueUsage(now));
      nextUsageSample = now + engine.admissionFairSharing().samplingIntervalMillis();
    }
    wakeAt(nextUsageSample);
  }

  /** The earliest wake-up asked for and not yet passed (epoch millis), or Long.MAX_VALUE. */
  private long wakeAt = Long.MAX_VALUE;

  /**
   * Runs a cycle at {@code at} (epoch millis): a held workload's requeueAt, or the end of a minimum
   * runtime.
   */
  private void wakeAt(long at) {
    long now = System.currentTimeMillis();
    if (wakeAt > now && wakeAt <= at) {
      return; // an earlier wake-up is still to come; it asks for the next one
    }
    wakeAt = at;
    try {
      retryTimer.schedule(this::poke, Math.max(0, at - now) + 5, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException stopped) {
      // Closing.
    }
  }

  /**
   * The Lease is lost: decide nothing more and send nothing more (see {@link WritePool#fence}).
   * Observations and the results of writes already on the wire are still applied, so the Events of
   * admissions that were written are still recorded.
   */
  public void fence() {
    fenced = true;
    writer.pool().fence();
  }

  /**
   * Stops the loop: no new cycle starts, the one running finishes, and the writes the pool holds
   * are drained ({@link #drain}); all of it within {@link #STOP_WAIT}, well inside the chart's 30 s
   * termination grace period, then the loop is interrupted. Call before closing the client and
   * before giving up the Lease, so that no write meets a closed client and the drained writes are
   * still this replica's to make.
   */
  @Override
  public void close() {
    stopBy = System.nanoTime() + STOP_WAIT.toNanos();
    running = false;
    retryTimer.shutdownNow();
    inbox.add(new Observation(s -> {}, new CompletableFuture<>()));
    try {
      thread.join(STOP_WAIT.plusSeconds(1).toMillis());
      if (thread.isAlive()) {
        log.warn(
            "admission loop: the running cycle and the drain did not finish in {} s; interrupting"
                + " it",
            STOP_WAIT.toSeconds());
        thread.interrupt();
        thread.join(2_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    writer.pool().close();
  }

  /** What one cycle decided, and how long deciding and writing took. */
  public record CycleOutcome(CycleResult result, long nanos) {}
}
