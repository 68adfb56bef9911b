package dev.berth.operator.visibility;

import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.Admission;
import dev.berth.engine.Eviction;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.admission.ClusterView;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The last admissions, evictions and preemptions the admission loop decided, newest first, for the
 * dashboard. Fed on the loop thread after each cycle; read from the HTTPS threads. Held in memory
 * only (the leader's since it started): the Workloads' conditions and Events are the record, this
 * is the feed.
 */
public final class RecentDecisions implements Consumer<AdmissionLoop.CycleOutcome> {
  static final int CAPACITY = 200;

  /**
   * One decision. {@code kind} is Admitted, Evicted or Preempted; for a preemption {@code
   * preemptor} names the workload it made room for (namespace and name, or null when the operator
   * does not know it), {@code preemptorClusterQueue} its ClusterQueue.
   */
  public record Decision(
      long at,
      String kind,
      String namespace,
      String name,
      String clusterQueue,
      String reason,
      String message,
      String preemptorNamespace,
      String preemptorName) {}

  private final ClusterView state;
  private final Clock clock;
  private final Deque<Decision> decisions = new ArrayDeque<>();

  public RecentDecisions(ClusterView state, Clock clock) {
    this.state = state;
    this.clock = clock;
  }

  @Override
  public void accept(AdmissionLoop.CycleOutcome outcome) {
    List<Decision> fresh = new ArrayList<>();
    for (Admission a : outcome.result().admissions()) {
      fresh.add(
          new Decision(
              a.admittedAt(),
              "Admitted",
              a.namespace(),
              a.name(),
              a.clusterQueue(),
              a.borrows() ? "Borrowing" : "QuotaReserved",
              null,
              null,
              null));
    }
    long now = clock.millis();
    // Evictions are asked for again until seen done: each once, when first asked for.
    for (Eviction e : outcome.result().newEvictions()) {
      Optional<Workload> victim = state.latestWorkload(e.workloadUid());
      String namespace = victim.map(w -> w.getMetadata().getNamespace()).orElse("");
      String name = victim.map(w -> w.getMetadata().getName()).orElse(e.workloadUid());
      if (e.preemptionReason() != null) {
        Optional<Workload> preemptor = state.latestWorkload(e.preemptorUid());
        fresh.add(
            new Decision(
                now,
                "Preempted",
                namespace,
                name,
                e.clusterQueue(),
                e.preemptionReason().name(),
                e.message(),
                preemptor.map(w -> w.getMetadata().getNamespace()).orElse(null),
                preemptor.map(w -> w.getMetadata().getName()).orElse(null)));
      } else {
        fresh.add(
            new Decision(
                now,
                "Evicted",
                namespace,
                name,
                e.clusterQueue(),
                e.reason().name(),
                e.message(),
                null,
                null));
      }
    }
    if (fresh.isEmpty()) {
      return;
    }
    synchronized (decisions) {
      for (Decision d : fresh) {
        decisions.addFirst(d);
      }
      while (decisions.size() > CAPACITY) {
        decisions.removeLast();
      }
    }
  }

  /** Newest first. */
  public List<Decision> snapshot() {
    synchronized (decisions) {
      return List.copyOf(decisions);
    }
  }
}
