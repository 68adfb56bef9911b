package dev.berth.operator.budget;

import dev.berth.api.v1beta1.Budget;
import dev.berth.api.v1beta1.BudgetStatus;
import dev.berth.engine.usage.UsageTotals;
import dev.berth.operator.kube.ApiErrors;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each Budget's status on a thread of its own (never the loop's), carrying the
 * resourceVersion it was made from: a change of window or of exhausted at once, changed numbers at
 * most every {@link #NUMBERS_EVERY}. A refused write is forgotten, so the next evaluation offers it
 * again (from the newer version the watch brings).
 */
final class BudgetStatusWriter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BudgetStatusWriter.class);
  static final Duration NUMBERS_EVERY = Duration.ofSeconds(5);

  /** The schema's bound on status.counted. */
  static final int MAX_COUNTED = 4096;

  private record Sent(String content, boolean exhausted, String window, long nanos) {}

  private final KubernetesClient client;
  private final Clock clock;
  private final Map<String, Sent> sent = new ConcurrentHashMap<>();
  private final ExecutorService thread =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "berth-budget-status");
            t.setDaemon(true);
            return t;
          });

  BudgetStatusWriter(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /** Loop thread: the budget's state now, against the version stored. */
  void offer(BudgetState state, Budget stored, long nanos) {
    if (stored == null) {
      return;
    }
    BudgetStatus status = status(state);
    String content = Serialization.asJson(status);
    Sent last = sent.get(state.name());
    if (last == null && stored.getStatus() != null) {
      // After a restart: what is stored already says this.
      // Read back from its JSON: the stored object is the informer's and is never changed.
      BudgetStatus known =
          Serialization.unmarshal(Serialization.asJson(stored.getStatus()), BudgetStatus.class);
      known.lastUpdateTime = null;
      if (Serialization.asJson(known).equals(content)) {
        sent.put(state.name(), new Sent(content, state.exhausted(), state.span().label(), nanos));
        return;
      }
    }
    if (last != null && last.content.equals(content)) {
      return;
    }
    boolean urgent =
        last == null
            || last.exhausted != state.exhausted()
            || !Objects.equals(last.window, state.span().label());
    if (!urgent && nanos - last.nanos < NUMBERS_EVERY.toNanos()) {
      return;
    }
    Sent now = new Sent(content, state.exhausted(), state.span().label(), nanos);
    sent.put(state.name(), now);
    Budget copy = new Budget();
    copy.setMetadata(
        new ObjectMetaBuilder()
            .withName(stored.getMetadata().getName())
            .withResourceVersion(stored.getMetadata().getResourceVersion())
            .build());
    copy.setSpec(stored.getSpec());
    status.lastUpdateTime = clock.instant().toString();
    copy.setStatus(status);
    thread.execute(() -> write(copy, now));
  }

  void forget(String name) {
    sent.remove(name);
  }

  private void write(Budget copy, Sent now) {
    try {
      try {
        client.resource(copy).updateStatus();
      } catch (KubernetesClientException e) {
        if (!ApiErrors.conflict(e)) {
          throw e;
        }
        // Written from a version older than the stored one (our own last write, not yet seen by
        // the watch): this status is the operator's alone, so it goes onto the newest version.
        Budget stored = client.resource(copy).get();
        if (stored == null) {
          throw e;
        }
        copy.getMetadata().setResourceVersion(stored.getMetadata().getResourceVersion());
        client.resource(copy).updateStatus();
      }
    } catch (KubernetesClientException e) {
      sent.remove(copy.getMetadata().getName(), now);
      if (!ApiErrors.conflictOrGone(e)) {
        log.warn("status of Budget {} not written: {}", copy.getMetadata().getName(), e.getCode());
      }
    } catch (RuntimeException e) {
      sent.remove(copy.getMetadata().getName(), now);
      log.warn("status of Budget {} not written", copy.getMetadata().getName(), e);
    }
  }

  /** The status for a state, without lastUpdateTime (set when it is sent). */
  static BudgetStatus status(BudgetState state) {
    BudgetStatus status = new BudgetStatus();
    status.window = state.span().label();
    status.windowStart = state.span().start().toString();
    status.resetsAt = state.span().end().toString();
    status.exhausted = state.exhausted();
    status.message = state.message();
    status.resources = new ArrayList<>();
    for (var e : state.limitHours().entrySet()) {
      BudgetStatus.ResourceUse r = new BudgetStatus.ResourceUse();
      r.resource = e.getKey();
      r.limitHours = UsageTotals.text(e.getValue());
      r.usedHours = UsageTotals.text(state.usedHours().get(e.getKey()));
      r.endedResourceSeconds =
          UsageTotals.text(
              state.endedSeconds().getOrDefault(e.getKey(), java.math.BigDecimal.ZERO));
      status.resources.add(r);
    }
    List<Map.Entry<String, Long>> counted = new ArrayList<>(state.counted().entrySet());
    // The newest runs are the ones still likely to be offered again.
    counted.sort(
        Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder())
            .thenComparing(Map.Entry.comparingByKey()));
    status.counted = new ArrayList<>();
    for (Map.Entry<String, Long> c : counted.subList(0, Math.min(MAX_COUNTED, counted.size()))) {
      BudgetStatus.CountedRun run = new BudgetStatus.CountedRun();
      run.uid = c.getKey();
      run.runStart = Instant.ofEpochMilli(c.getValue()).toString();
      status.counted.add(run);
    }
    status.counted.sort(Comparator.comparing(r -> r.uid));
    return status;
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
