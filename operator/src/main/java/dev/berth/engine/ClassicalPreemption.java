package dev.berth.engine;

import dev.berth.engine.flavor.Assignment;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.model.PreemptionPolicy.BorrowWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.ReclaimWithinCohort;
import dev.berth.engine.model.PreemptionPolicy.WithinClusterQueue;
import dev.berth.engine.quota.QuotaNode;
import dev.berth.engine.quota.QuotaTree;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The PreemptionPlanner of the ClusterQueue preemption policies (Kueue's "classical" preemption).
 *
 * <p>Candidates: admitted workloads of the preemptor's ClusterQueue allowed by withinClusterQueue,
 * and workloads of other ClusterQueues of the cohort tree allowed by reclaimWithinCohort, taken
 * only while their queue borrows on a flavor-resource the preemptor needs, in {@link VictimOrder}
 * (other ClusterQueues first, lowest priority first, ...). Attempts, first that finds victims wins:
 *
 * <ol>
 *   <li>if the preemptor's queue is under nominal quota on every flavor-resource that needs
 *       preemption: all candidates, and the preemptor must fit without borrowing (a reclamation);
 *   <li>with borrowWithinCohort LowerPriority: own-queue candidates and other queues' candidates of
 *       lower priority than the preemptor (and at most maxPriorityThreshold), borrowing allowed;
 *   <li>own-queue candidates only, borrowing allowed.
 * </ol>
 *
 * Each attempt removes candidates from the quota tree one by one until the preemptor fits, then
 * gives back every victim it can do without (newest taken first), so no victim is needless, and
 * restores the tree. A preemptor that borrows takes from another queue only what that queue
 * borrows, never its nominal quota. A victim can still take quota back from its preemptor's queue
 * once that queue borrows (a reclamation within its own nominal quota), but preemption settles: it
 * does not go round.
 */
public final class ClassicalPreemption implements PreemptionPlanner {

  @Override
  public List<String> victims(PreemptionContext context) {
    return plan(context).stream().map(Victim::uid).toList();
  }

  @Override
  public List<Victim> plan(PreemptionContext ctx) {
    Entry e = ctx.preemptor();
    ClusterQueueState own = e.queue;
    Assignment a = e.assignment;
    if (a.frs() == null || own.spec == null) {
      return List.of();
    }
    PreemptionPolicy policy = own.spec.preemption();
    QuotaNode node = own.node;
    int[] frs = a.frs();
    long[] need = a.usage();
    boolean[] needed = new boolean[frs.length];
    boolean underNominal = true;
    boolean any = false;
    for (int i = 0; i < frs.length; i++) {
      if (need[i] > QuotaTree.available(node, frs[i])) {
        needed[i] = true;
        any = true;
        underNominal &= node.usage(frs[i]) < node.nominal(frs[i]);
      }
    }
    if (!any) {
      return List.of();
    }
    boolean borrowWhilePreempting =
        policy.borrowWithinCohort() == BorrowWithinCohort.LowerPriority
            && policy.reclaimWithinCohort() != ReclaimWithinCohort.Never;
    Integer threshold = policy.borrowMaxPriorityThreshold();
    // Other queues' workloads below this priority may be taken while the preemptor borrows.
    int borrowBelow =
        !borrowWhilePreempting
            ? Integer.MIN_VALUE
            : threshold == null ? e.priority() : (int) Math.min(e.priority(), threshold + 1L);
    List<AdmittedWorkload> sameQueue = new ArrayList<>();
    List<AdmittedWorkload> cohort = new ArrayList<>();
    for (ClusterQueueState q : ctx.treeQueues()) {
      if (skip(q, own, policy, e.priority(), underNominal, borrowBelow, frs, needed)) {
        continue;
      }
      for (AdmittedWorkload w : q.admitted.values()) {
        if (!NeededFlavorResources.usesNeeded(w, frs, needed)) {
          continue;
        }
        // choosable last: it notes a fresh admission that would have been a candidate.
        if (q == own) {
          if (withinClusterQueue(policy.withinClusterQueue(), w, e) && ctx.choosable(w)) {
            sameQueue.add(w);
          }
        } else if (reclaimWithinCohort(policy.reclaimWithinCohort(), w, e)
            && !ctx.protectedFromOtherQueues(w)
            && ctx.choosable(w)) {
          cohort.add(w);
        }
      }
    }
    Comparator<AdmittedWorkload> order = VictimOrder.of(own.name, ctx);
    List<Victim> found = List.of();
    if (underNominal) {
      List<AdmittedWorkload> all = new ArrayList<>(cohort);
      all.addAll(sameQueue);
      all.sort(order);
      found = minimal(ctx, all, frs, need, needed, false, PreemptionReason.InCohortReclamation);
    }
    if (found.isEmpty() && borrowWhilePreempting) {
      List<AdmittedWorkload> all = new ArrayList<>(sameQueue);
      for (AdmittedWorkload w : cohort) {
        if (w.workload.priority() < borrowBelow) {
          all.add(w);
        }
      }
      all.sort(order);
      found =
          minimal(
              ctx, all, frs, need, needed, true, PreemptionReason.InCohortReclaimWhileBorrowing);
    }
    if (found.isEmpty() && !sameQueue.isEmpty()) {
      sameQueue.sort(order);
      found =
          minimal(
              ctx,
              sameQueue,
              frs,
              need,
              needed,
              true,
              PreemptionReason.InCohortReclaimWhileBorrowing);
    }
    return found;
  }

  /**
   * Whether no admitted workload of queue q can be a victim, decided from the queue alone (its
   * lowest admitted priority and whether it borrows), so that big trees are not scanned in vain.
   */
  private static boolean skip(
      ClusterQueueState q,
      ClusterQueueState own,
      PreemptionPolicy policy,
      int priority,
      boolean underNominal,
      int borrowBelow,
      int[] frs,
      boolean[] needed) {
    int lowest = q.lowestAdmittedPriority();
    if (q == own) {
      return switch (policy.withinClusterQueue()) {
        case Never -> true;
        case LowerPriority -> lowest >= priority;
        case LowerOrNewerEqualPriority -> lowest > priority;
      };
    }
    if (policy.reclaimWithinCohort() == ReclaimWithinCohort.Never) {
      return true;
    }
    boolean reclaimable =
        underNominal
            && (policy.reclaimWithinCohort() == ReclaimWithinCohort.Any || lowest < priority);
    // Cheap checks first: this runs for every queue of the tree.
    return (!reclaimable && lowest >= borrowBelow)
        || q.node == null
        || !NeededFlavorResources.borrowsOnNeeded(q.node, frs, needed);
  }

  static boolean withinClusterQueue(
      WithinClusterQueue policy, AdmittedWorkload w, Entry preemptor) {
    int p = w.workload.priority();
    return switch (policy) {
      case Never -> false;
      case LowerPriority -> p < preemptor.priority();
      case LowerOrNewerEqualPriority ->
          p < preemptor.priority()
              || (p == preemptor.priority()
                  && w.workload.queueTimestamp() > preemptor.queueTimestamp());
    };
  }

  static boolean reclaimWithinCohort(
      ReclaimWithinCohort policy, AdmittedWorkload w, Entry preemptor) {
    return switch (policy) {
      case Never -> false;
      case LowerPriority -> w.workload.priority() < preemptor.priority();
      case Any -> true;
    };
  }

  /**
   * Removes candidates in order until the preemptor fits, then gives back the ones not needed.
   * Another queue's workload is taken only while that queue borrows on a needed flavor-resource
   * that this workload uses. The tree is restored before returning.
   */
  private static List<Victim> minimal(
      PreemptionContext ctx,
      List<AdmittedWorkload> candidates,
      int[] frs,
      long[] need,
      boolean[] needed,
      boolean allowBorrowing,
      PreemptionReason cohortReason) {
    if (candidates.isEmpty()) {
      return List.of();
    }
    ClusterQueueState own = ctx.preemptor().queue;
    List<AdmittedWorkload> taken = new ArrayList<>();
    boolean fits = false;
    for (AdmittedWorkload w : candidates) {
      if (!w.clusterQueue.equals(own.name)) {
        QuotaNode theirs = ctx.queue(w.clusterQueue).node;
        if (!NeededFlavorResources.borrowsOnNeeded(theirs, w, frs, needed)
            || (allowBorrowing && !staysAtNominal(theirs, w, frs, needed))) {
          continue;
        }
      }
      SimulatedRemoval.remove(ctx, w);
      taken.add(w);
      if (fits(own.node, frs, need, allowBorrowing)) {
        fits = true;
        break;
      }
    }
    if (fits) {
      SimulatedRemoval.giveBackUnneeded(
          ctx,
          taken,
          SimulatedRemoval.IndexedCheck.of(() -> fits(own.node, frs, need, allowBorrowing)));
    }
    return SimulatedRemoval.restoreAndName(ctx, taken, own.name, cohortReason, fits);
  }

  /**
   * Whether taking w leaves its queue at or above its nominal quota on every needed
   * flavor-resource: a preemptor that borrows takes only what other queues borrow, never their
   * nominal quota. Otherwise the victim's queue, back under its nominal quota, reclaims from the
   * preemptor's queue, which borrows, and the three can go round for ever (found by
   * PreemptionProperties: in-queue preemption with borrowing, reclaim while borrowing, reclamation,
   * and again).
   */
  private static boolean staysAtNominal(
      QuotaNode node, AdmittedWorkload w, int[] frs, boolean[] needed) {
    for (int i = 0; i < frs.length; i++) {
      if (needed[i]
          && node.usage(frs[i]) - NeededFlavorResources.amountOf(w, frs[i])
              < node.nominal(frs[i])) {
        return false;
      }
    }
    return true;
  }

  static boolean fits(QuotaNode node, int[] frs, long[] need, boolean allowBorrowing) {
    for (int i = 0; i < frs.length; i++) {
      if (need[i] > QuotaTree.available(node, frs[i])) {
        return false;
      }
      if (!allowBorrowing && node.usage(frs[i]) + need[i] > node.nominal(frs[i])) {
        return false;
      }
    }
    return true;
  }
}
