package dev.berth.engine;

import dev.berth.engine.model.Cohort;
import dev.berth.engine.queue.PendingWorkload;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;

/**
 * Estimated start times: the engine's own admission cycles replayed on a copy of its state, on a
 * simulated clock that jumps from one expected end of an admitted workload to the next. An admitted
 * workload ends at its maximum execution time where it has one, else after the median runtime of
 * the finished workloads of its ClusterQueue ({@link RuntimeHistory}); with neither it is assumed
 * to hold its quota for good. Workloads that arrive later are not foreseen.
 *
 * <p>Bounded: the replay stops after {@link #MAX_CYCLES} cycles or {@link #MAX_STARTS} starts of
 * pending workloads, whichever comes first; what has not started by then is "unknown: beyond the
 * replay bound". The copy costs one pass over the pending and admitted workloads. Pods bound to
 * nodes outside a topology placement are assumed to stay (the replay does not know when they end).
 */
final class StartEstimator {
  static final int MAX_CYCLES = 1000;
  static final int MAX_STARTS = 1000;

  static final String FITS_NOW = "fits now";
  static final String MAX_EXECUTION_TIME = "maxExecutionTime";
  static final String BEING_EVICTED = "being evicted";

  /** An expected end, and the cohort tree whose quota it frees (what it can matter to). */
  private record End(long at, String uid, String basis, String tree) {}

  private final AdmissionEngine source;
  private final RuntimeHistory history;
  private final Map<String, Long> deadlines;
  private final Map<String, Long> budgets;

  /**
   * @param deadlines admitted workloads' ends by their maximum execution time (epoch millis)
   * @param budgets pending workloads' maximum execution time left (millis)
   */
  StartEstimator(
      AdmissionEngine source,
      RuntimeHistory history,
      Map<String, Long> deadlines,
      Map<String, Long> budgets) {
    this.source = source;
    this.history = history;
    this.deadlines = deadlines;
    this.budgets = budgets;
  }

  Map<String, StartEstimate> run(long now) {
    if (source.pendingQueues().pending().isEmpty()) {
      return Map.of();
    }
    AdmissionEngine sim = source.simulationCopy();
    PriorityQueue<End> ends =
        new PriorityQueue<>(Comparator.comparingLong(End::at).thenComparing(End::uid));
    Map<String, End> endOf = new HashMap<>();
    // Per cohort tree: what a start there rests on, and the workloads nothing says the end of.
    Map<String, Set<String>> assumed = new HashMap<>();
    Map<String, Integer> neverEnding = new HashMap<>();
    for (AdmittedWorkload a : sim.quotaStore().admitted()) {
      End end =
          a.evictionRequested
              ? new End(now, a.workload.uid(), BEING_EVICTED, treeOf(sim, a.clusterQueue))
              : expectedEnd(
                  sim, a.workload.uid(), a.clusterQueue, a.admission.admittedAt(), now, true);
      if (end == null) {
        neverEnding.merge(treeOf(sim, a.clusterQueue), 1, Integer::sum);
      } else {
        ends.add(end);
        endOf.put(end.uid(), end);
      }
    }
    Map<String, StartEstimate> out = new LinkedHashMap<>();
    Set<String> targets = source.pendingQueues().pendingUids();
    long t = now;
    int cycles = 0;
    while (cycles < MAX_CYCLES && out.size() < Math.min(MAX_STARTS, targets.size())) {
      CycleResult r = sim.runCycle(t);
      cycles++;
      for (Admission adm : r.admissions()) {
        String uid = adm.workloadUid();
        if (targets.contains(uid) && !out.containsKey(uid)) {
          Set<String> basis = assumed.getOrDefault(treeOf(sim, adm.clusterQueue()), Set.of());
          out.put(uid, new StartEstimate(t, basis.isEmpty() ? FITS_NOW : String.join("; ", basis)));
        }
        End end = expectedEnd(sim, uid, adm.clusterQueue(), t, t, false);
        if (end == null) {
          neverEnding.merge(treeOf(sim, adm.clusterQueue()), 1, Integer::sum);
        } else {
          ends.add(end);
          endOf.put(uid, end);
        }
      }
      for (Eviction ev : r.newEvictions()) {
        // Preempted in the replay: its quota is free at once and it queues again.
        endOf.remove(ev.workloadUid());
        sim.workloadEvicted(ev.workloadUid(), t);
      }
      if (!r.admissions().isEmpty() || !r.newEvictions().isEmpty()) {
        continue;
      }
      End next = nextEnd(ends, endOf);
      if (next == null) {
        break;
      }
      t = Math.max(t, next.at());
      do {
        endOf.remove(next.uid());
        sim.workloadFinished(next.uid());
        assumed.computeIfAbsent(next.tree(), k -> new TreeSet<>()).add(next.basis());
        End peek = ends.peek();
        next = peek != null && peek.at() <= t ? nextEnd(ends, endOf) : null;
      } while (next != null);
    }
    boolean bounded = cycles >= MAX_CYCLES || out.size() >= MAX_STARTS;
    List<String> rest = new ArrayList<>();
    for (String uid : targets) {
      if (!out.containsKey(uid)) {
        rest.add(uid);
      }
    }
    rest.sort(null);
    for (String uid : rest) {
      PendingWorkload pw = source.pendingQueues().pending(uid);
      int stuck = neverEnding.getOrDefault(treeOf(sim, pw.bucket().queue().clusterQueue()), 0);
      out.put(
          uid,
          new StartEstimate(
              null,
              bounded
                  ? StartEstimate.BEYOND_REPLAY
                      + " ("
                      + MAX_STARTS
                      + " starts, "
                      + MAX_CYCLES
                      + " cycles)"
                  : stuck > 0
                      ? "unknown: waits on "
                          + stuck
                          + " admitted workload(s) with no expected end"
                          + " (no maximumExecutionTimeSeconds, no finished workloads in their"
                          + " ClusterQueue)"
                      : "unknown: not admitted in the replay (see its reason)"));
    }
    return out;
  }

  /** The earliest end still valid (a preempted workload's old end is skipped), or null. */
  private static End nextEnd(PriorityQueue<End> ends, Map<String, End> endOf) {
    while (!ends.isEmpty()) {
      End e = ends.poll();
      if (endOf.get(e.uid()) == e) {
        return e;
      }
    }
    return null;
  }

  /**
   * When an admitted workload is expected to end, or null when nothing says. One running past its
   * expected end is given the median of the runs that outlasted its age so far, or if none did, one
   * more median from now.
   */
  private End expectedEnd(
      AdmissionEngine sim,
      String uid,
      String clusterQueue,
      long admittedAt,
      long now,
      boolean running) {
    String tree = treeOf(sim, clusterQueue);
    Long deadline = running ? deadlines.get(uid) : null;
    Long budget = budgets.get(uid);
    if (deadline != null) {
      return new End(Math.max(now, deadline), uid, MAX_EXECUTION_TIME, tree);
    }
    if (!running && budget != null) {
      return new End(admittedAt + budget, uid, MAX_EXECUTION_TIME, tree);
    }
    Long median = history.median(clusterQueue, 0);
    if (median == null) {
      return null;
    }
    String basis = "median of " + history.count(clusterQueue) + " finished in " + clusterQueue;
    long age = now - admittedAt;
    if (admittedAt + median > now) {
      return new End(admittedAt + median, uid, basis, tree);
    }
    Long longer = history.median(clusterQueue, age);
    return new End(longer != null ? admittedAt + longer : now + median, uid, basis, tree);
  }

  /**
   * The cohort tree a ClusterQueue draws quota from (its root cohort, or itself outside any): only
   * ends within it can let its workloads start.
   */
  private static String treeOf(AdmissionEngine sim, String clusterQueue) {
    ClusterQueueState cq = sim.quotaStore().find(clusterQueue);
    String cohort = cq == null || cq.spec == null ? null : cq.spec.cohort();
    if (cohort == null) {
      return "cq/" + clusterQueue;
    }
    Set<String> seen = new HashSet<>();
    while (seen.add(cohort)) {
      Cohort c = sim.quotaStore().cohort(cohort);
      if (c == null || c.parentName() == null) {
        break;
      }
      cohort = c.parentName();
    }
    return "cohort/" + cohort;
  }
}
