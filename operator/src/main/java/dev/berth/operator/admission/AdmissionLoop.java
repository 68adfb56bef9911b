package dev.berth.operator.admission;

import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.CycleResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that owns the admission engine. Reconcilers submit what they observed; the loop
 * applies every waiting observation, runs one admission cycle and hands its decisions to the {@link
 * DecisionWriter}. It runs only when something happened, or when a failed write, a failed cycle or
 * a failed bootstrap asked to be tried again after a back-off.
 *
 * <p>Before the first cycle the loop rebuilds the engine from a LIST of each kind ({@link
 * Bootstrap}; one after another, not one snapshot: what changed in between is in the inbox and
 * applied next), so a restarted operator knows every admitted workload before it admits anything
 * new.
 */
public final class AdmissionLoop implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AdmissionLoop.class);

  /** A cycle (deciding and writing) running longer than this means the loop is stuck. */
  static final Duration STUCK_AFTER = Duration.ofSeconds(60);

  private static final Duration STOP_WAIT = Duration.ofSeconds(10);

  private final AdmissionEngine engine;
  private final ClusterState state;
  private final Bootstrap bootstrap;
  private final DecisionWriter writer;
  private final List<Consumer<CycleOutcome>> listeners = new ArrayList<>();
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
  private volatile boolean bootstrapped;

  /** System.nanoTime() when the current bootstrap or cycle began, or 0 while waiting. */
  private volatile long busySince;

  private int failures;

  private record Observation(Consumer<ClusterState> apply, CompletableFuture<Void> decided) {}

  public AdmissionLoop(
      AdmissionEngine engine, ClusterState state, Bootstrap bootstrap, DecisionWriter writer) {
    this.engine = engine;
    this.state = state;
    this.bootstrap = bootstrap;
    this.writer = writer;
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
   * Queue an observation; it is applied on the loop thread before the next cycle. The future
   * completes once a cycle that saw it has written its decisions (or has failed).
   */
  public CompletableFuture<Void> submit(Consumer<ClusterState> observation) {
    CompletableFuture<Void> decided = new CompletableFuture<>();
    inbox.add(new Observation(observation, decided));
    return decided;
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
    long since = busySince;
    return thread.isAlive()
        && running
        && (since == 0 || System.nanoTime() - since < STUCK_AFTER.toNanos());
  }

  private void run() {
    List<Observation> batch = new ArrayList<>();
    while (running) {
      try {
        Observation first = inbox.poll(1, TimeUnit.SECONDS);
        if (first == null || !running) {
          continue;
        }
        batch.add(first);
        inbox.drainTo(batch);
        busySince = System.nanoTime();
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
        cycle();
        failures = 0;
        complete(batch);
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
        busySince = 0;
        if (bootstrapped) {
          batch.clear();
        }
      }
    }
    for (Observation o : batch) {
      o.decided().cancel(false);
    }
    log.info("admission loop stopped");
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
    long now = System.currentTimeMillis();
    // Requeued workloads whose backoff is over compete again; wake up for the next one, or for
    // the next maximum execution time to run out.
    state.releaseDue(now).ifPresent(this::wakeAt);
    CycleResult result = engine.runCycle(now);
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

  /** The earliest wake-up asked for and not yet passed (epoch millis), or Long.MAX_VALUE. */
  private long wakeAt = Long.MAX_VALUE;

  /** Runs a cycle at {@code at} (epoch millis): a held workload's requeueAt. */
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
   * Stops the loop: no new cycle starts, and the one running finishes its writes (up to 10 s; then
   * it is interrupted). Call before closing the client, so that no write meets a closed one.
   */
  @Override
  public void close() {
    running = false;
    retryTimer.shutdownNow();
    inbox.add(new Observation(s -> {}, new CompletableFuture<>()));
    try {
      thread.join(STOP_WAIT.toMillis());
      if (thread.isAlive()) {
        log.warn(
            "admission loop: the running cycle did not finish in {} s; interrupting it",
            STOP_WAIT.toSeconds());
        thread.interrupt();
        thread.join(STOP_WAIT.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** What one cycle decided, and how long deciding and writing took. */
  public record CycleOutcome(CycleResult result, long nanos) {}
}
