package dev.berth.engine;

import dev.berth.engine.quota.QuotaNode;
import dev.berth.engine.quota.QuotaTree;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The quota tree with the preemptions already under way handed over, for planning one more
 * preemptor. A victim keeps its quota counted on its own ClusterQueue until its preemptor's last
 * victim is gone, so on the tree as it is, a queue that has already given its borrowed quota to one
 * preemptor still looks like a borrower to the next: that preemptor would take a second workload
 * from it for the same borrowed quota, leave it under its nominal quota, and the evicted workload
 * would reclaim it back (a circle of preemptions, as in Kueue #14543). While one preemptor is
 * planned, each other pending preemption of its tree is handed over: as much of its victims' usage
 * as the preemptor will hold beyond its reservation moves from their queues to the preemptor's,
 * whose it already is (no one else may take it). What the preemptor will not need stays where it is
 * counted now: it is not free until the last victim is gone, and counted on the preemptor it would
 * make that queue look like a borrower it will not be. {@link #undo()} puts the tree back exactly.
 *
 * <p>A pending preemption of the planned entry's own queue is left alone: a new preemptor of that
 * queue replaces it ({@link QuotaStore#awaitVictim}), so its future is not certain. The handed-over
 * tree only rules candidates out: the cycle still checks that the victims chosen on it make room on
 * the tree as it is, since a preemption under way may yet be called off.
 */
final class PreemptionsUnderWay {
  private record Move(QuotaNode node, int fr, long amount, boolean added) {}

  private final List<Move> moves = new ArrayList<>();
  private boolean changed;

  private PreemptionsUnderWay() {}

  /** Applies every other preemption under way in the entry's tree; undo it after planning. */
  static PreemptionsUnderWay apply(QuotaStore quota, List<ClusterQueueState> tree, Entry entry) {
    PreemptionsUnderWay applied = new PreemptionsUnderWay();
    for (ClusterQueueState q : tree) {
      PendingPreemption p = q.preemption;
      if (p == null
          || p.ready
          || p.outstanding.isEmpty()
          || p.queue == entry.queue
          || p.queue.node == null
          || p.preemptorUid.equals(entry.workloadUid())) {
        continue;
      }
      // What the preemptor still needs beyond its reservation, per reserved flavor-resource.
      Map<Integer, Long> wanted = new HashMap<>();
      for (int i = 0; i < p.reservedFrs.length && i < p.request.length; i++) {
        wanted.merge(p.reservedFrs[i], Math.max(0, p.request[i] - p.reserved[i]), Long::sum);
      }
      for (String uid : p.outstanding) {
        AdmittedWorkload victim = quota.admitted(uid);
        if (victim != null) {
          applied.move(quota, victim, p.queue.node, wanted);
        }
      }
      for (AdmittedWorkload released : p.held) {
        applied.move(quota, released, p.queue.node, wanted);
      }
    }
    return applied;
  }

  /** Moves as much of a victim's usage to its preemptor's queue as the preemptor still wants. */
  private void move(QuotaStore quota, AdmittedWorkload w, QuotaNode to, Map<Integer, Long> wanted) {
    ClusterQueueState q = quota.queues().get(w.clusterQueue);
    if (q == null || q.node == null) {
      return;
    }
    for (int k = 0; k < w.frs.length; k++) {
      long amount = Math.min(w.usage[k], wanted.getOrDefault(w.frs[k], 0L));
      if (amount > 0) {
        changed = true;
        wanted.merge(w.frs[k], -amount, Long::sum);
        QuotaTree.removeUsage(q.node, w.frs[k], amount);
        moves.add(new Move(q.node, w.frs[k], amount, false));
        QuotaTree.addUsage(to, w.frs[k], amount);
        moves.add(new Move(to, w.frs[k], amount, true));
      }
    }
  }

  /** Whether any usage was handed over (before {@link #undo()}: whether any will be). */
  boolean changedAnything() {
    return changed;
  }

  /** Puts the tree back as it was, last change first. */
  void undo() {
    for (int i = moves.size() - 1; i >= 0; i--) {
      Move m = moves.get(i);
      if (m.added()) {
        QuotaTree.removeUsage(m.node(), m.fr(), m.amount());
      } else {
        QuotaTree.addUsage(m.node(), m.fr(), m.amount());
      }
    }
    moves.clear();
  }
}
