package dev.berth.operator.usage;

import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.usage.UsageLedger;
import dev.berth.operator.admission.ClusterObserver;
import dev.berth.operator.admission.WorkloadPhase;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The usage side of the loop's observations: the {@link UsageLedger} of quota reservations (the
 * runs it opens and ends wait here for the {@link UsagePublisher}), the namespaces' cost centres,
 * and each workload's pods for the DCGM join. Loop thread only.
 */
public final class UsageObserver implements ClusterObserver {
  private static final Logger log = LoggerFactory.getLogger(UsageObserver.class);

  private final UsageLedger ledger = new UsageLedger();
  private final List<UsageLedger.Event> events = new ArrayList<>();
  private final WorkloadPods pods = new WorkloadPods();
  private final Map<String, String> costCentres = new ConcurrentHashMap<>();
  private final List<java.util.function.Consumer<dev.berth.engine.usage.Run>> endedListeners =
      new ArrayList<>();

  /**
   * Also tells {@code listener} of every run that ends (budgets charge them), on the loop thread.
   */
  public void onRunEnded(java.util.function.Consumer<dev.berth.engine.usage.Run> listener) {
    endedListeners.add(listener);
  }

  /** Runs holding quota now. */
  public List<dev.berth.engine.usage.Run> openRuns() {
    return ledger.openRuns();
  }

  private void add(List<UsageLedger.Event> happened) {
    events.addAll(happened);
    for (UsageLedger.Event e : happened) {
      if (e instanceof UsageLedger.Ended ended) {
        endedListeners.forEach(l -> l.accept(ended.run()));
      }
    }
  }

  @Override
  public void workload(Workload wl, WorkloadPhase phase) {
    pods.workload(wl);
    try {
      add(
          ledger.observe(
              UsageTranslator.observation(wl, costCentres.get(wl.getMetadata().getNamespace()))));
    } catch (RuntimeException e) {
      // Billing must never keep a workload from the engine: a malformed time is logged, not fed.
      log.warn("usage of workload {} not tracked: {}", wl.getMetadata().getName(), e.toString());
    }
  }

  @Override
  public void workloadDeleted(String uid, Workload last) {
    if (last != null) {
      pods.forget(last);
    }
    add(ledger.deleted(uid, System.currentTimeMillis()));
  }

  @Override
  public void pod(Pod pod) {
    pods.pod(pod);
  }

  @Override
  public void namespace(String name, Map<String, String> labels) {
    String costCentre = labels == null ? null : labels.get(UsageTranslator.COST_CENTRE_LABEL);
    if (costCentre == null) {
      costCentres.remove(name);
    } else {
      costCentres.put(name, costCentre);
    }
  }

  @Override
  public void namespaceDeleted(String name) {
    costCentres.remove(name);
  }

  /** Pod name → podSet of the workload's pods seen so far (for the DCGM join). */
  public Map<String, String> podsOf(Workload wl) {
    return pods.of(wl);
  }

  /** Runs opened and ended since the last call, in order. */
  public List<UsageLedger.Event> takeEvents() {
    List<UsageLedger.Event> out = List.copyOf(events);
    events.clear();
    return out;
  }
}
