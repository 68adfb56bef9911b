package dev.berth.operator.admission;

import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.CycleResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that owns the admission engine. Reconcilers submit what they observed; the loop
 * applies every waiting observation, runs one admission cycle and hands its decisions to the
 * {@link DecisionWriter}. It runs only when something happened: there is no timer.
 *
 * <p>Before the first cycle the loop rebuilds the engine from a consistent list of every object
 * ({@link Bootstrap}), so a restarted operator knows every admitted workload before it admits
 * anything new.
 */
public final class AdmissionLoop implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AdmissionLoop.class);

  private final AdmissionEngine engine;
  private final ClusterState state;
  private final Bootstrap bootstrap;
  private final DecisionWriter writer;
  private final List<Consumer<CycleOutcome>> listeners = new ArrayList<>();
  private final BlockingQueue<Consumer<ClusterState>> inbox = new LinkedBlockingQueue<>();
  private final Thread thread;
  private final java.util.concurrent.ScheduledExecutorService retryTimer =
      java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "berth-admission-retry");
            t.setDaemon(true);
            return t;
          });
  private volatile boolean running = true;
  private volatile boolean bootstrapped;

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

  /** Queue an observation; it is applied on the loop thread before the next cycle. */
  public void submit(Consumer<ClusterState> observation) {
    inbox.add(observation);
  }

  /** Ask for a cycle without a new observation (e.g. after a write failed and was rolled back). */
  public void poke() {
    inbox.add(s -> {});
  }

  public boolean isBootstrapped() {
    return bootstrapped;
  }

  private void run() {
    while (running) {
      try {
        Consumer<ClusterState> first = inbox.poll(1, TimeUnit.SECONDS);
        if (first == null) {
          continue;
        }
        if (!bootstrapped) {
          // Everything already in the cluster, admitted workloads first, before any decision.
          bootstrap.load(state);
          bootstrapped = true;
          log.info("admission loop: rebuilt state from the API server; admitting from now on");
        }
        List<Consumer<ClusterState>> batch = new ArrayList<>();
        batch.add(first);
        inbox.drainTo(batch);
        for (Consumer<ClusterState> observation : batch) {
          try {
            observation.accept(state);
          } catch (RuntimeException e) {
            log.warn("admission loop: observation failed: {}", e.toString(), e);
          }
        }
        cycle();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        log.error("admission loop: cycle failed; will retry on the next event", e);
      }
    }
  }

  private void cycle() {
    long started = System.nanoTime();
    CycleResult result = engine.runCycle(System.currentTimeMillis());
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
      // A write failed on the API server's side and was rolled back: decide again shortly, not
      // at once, so an unavailable API server is not hammered.
      retryTimer.schedule(this::poke, 1, TimeUnit.SECONDS);
    }
  }

  @Override
  public void close() {
    running = false;
    retryTimer.shutdownNow();
    thread.interrupt();
  }

  /** What one cycle decided, and how long deciding and writing took. */
  public record CycleOutcome(CycleResult result, long nanos) {}
}
