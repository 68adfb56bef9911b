package dev.berth.operator.informers;

import io.javaoperatorsdk.operator.RegisteredController;
import io.javaoperatorsdk.operator.RuntimeInfo;
import io.javaoperatorsdk.operator.health.InformerHealthIndicator;
import io.javaoperatorsdk.operator.health.InformerWrappingEventSourceHealthIndicator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Marks the {@link InformerCaches} synced once every informer of every registered controller has
 * listed what was there, and not before.
 *
 * <p>Berth asks JOSDK not to stop the operator when a first list fails (a busy API server's
 * timeout, a 429, a restart): the informer retries with backoff instead. JOSDK's start then returns
 * after its cache-sync timeout (2 min) whether or not every informer has listed, so its return no
 * longer means "synced", and a state rebuilt then would miss the Workloads that hold quota and
 * admit over it. Informers hold their state, so this asks them directly.
 */
public final class InformerSync {
  private static final Logger log = LoggerFactory.getLogger(InformerSync.class);

  private final Supplier<RuntimeInfo> runtime;
  private final InformerCaches caches;
  private final Thread watcher;
  private volatile boolean running = true;

  public InformerSync(Supplier<RuntimeInfo> runtime, InformerCaches caches) {
    this.runtime = runtime;
    this.caches = caches;
    this.watcher = new Thread(this::run, "berth-informer-sync");
    watcher.setDaemon(true);
  }

  public void start() {
    watcher.start();
  }

  public void stop() {
    running = false;
    watcher.interrupt();
  }

  /**
   * The informers that have not yet listed, by controller and event source; empty once all have.
   */
  public static List<String> unsynced(RuntimeInfo info) {
    List<String> waiting = new ArrayList<>();
    if (info.getRegisteredControllers().isEmpty()) {
      waiting.add("(no controller registered yet)");
    }
    for (RegisteredController<?> controller : info.getRegisteredControllers()) {
      var sources = controller.getControllerHealthInfo().informerEventSourceHealthIndicators();
      for (var source : sources.entrySet()) {
        InformerWrappingEventSourceHealthIndicator<?> indicator = source.getValue();
        String name = controller.getConfiguration().getName() + "/" + source.getKey();
        if (!synced(indicator)) {
          waiting.add(name);
        }
      }
    }
    return waiting;
  }

  /**
   * JOSDK makes an event source's informers only when it starts, and until then asking for them
   * throws: none yet, or not yet readable, is not synced.
   */
  private static boolean synced(InformerWrappingEventSourceHealthIndicator<?> indicator) {
    Map<String, InformerHealthIndicator> informers;
    try {
      informers = indicator.informerHealthIndicators();
    } catch (RuntimeException notStartedYet) {
      return false;
    }
    if (informers.isEmpty()) {
      return false;
    }
    return informers.values().stream().allMatch(InformerHealthIndicator::hasSynced);
  }

  /**
   * Checks every 200 ms: the informers give no callback for "synced" through JOSDK, and start-up is
   * the only time this runs (it ends once all have listed).
   */
  private void run() {
    long started = System.nanoTime();
    long lastReport = started;
    try {
      while (running) {
        List<String> waiting;
        try {
          waiting = unsynced(runtime.get());
        } catch (RuntimeException e) {
          // Never let the one thread that unblocks the bootstrap die: ask again.
          log.warn("could not read the informers' state yet: {}", e.toString());
          waiting = List.of("(unreadable)");
        }
        if (waiting.isEmpty()) {
          caches.markSynced();
          log.info(
              "every informer has listed ({} ms after start)",
              (System.nanoTime() - started) / 1_000_000);
          return;
        }
        if (System.nanoTime() - lastReport > 30_000_000_000L) {
          lastReport = System.nanoTime();
          log.info("still waiting for the first list of {}", waiting);
        }
        // A poll interval, not a stand-in for a condition: the condition is the health check above,
        // and JOSDK 5.2.3 offers no callback for an informer's first list done.
        Thread.sleep(200);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
