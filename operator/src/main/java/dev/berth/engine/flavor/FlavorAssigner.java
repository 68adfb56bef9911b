package dev.berth.engine.flavor;

import dev.berth.engine.model.Explanation;
import dev.berth.engine.model.FlavorFungibility;
import dev.berth.engine.model.PendingReason;
import dev.berth.engine.model.PreemptionPolicy;
import dev.berth.engine.quota.QuotaNode;
import dev.berth.engine.quota.QuotaTree;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Chooses a flavor per podSet and resource group against the current quota: walks the
 * ClusterQueue's flavors in order, skips those the pods cannot use, classifies each as Fit, Preempt
 * or NoFit, and stops according to flavorFungibility. All podSets must be assigned (earlier
 * podSets' usage on a flavor counts against later ones); with minCount, the largest count that fits
 * is found by binary search. Reads quota, never changes it.
 */
public final class FlavorAssigner {
  private final boolean fairSharing;

  public FlavorAssigner() {
    this(false);
  }

  /**
   * With fair sharing, a queue whose reclaimWithinCohort is not Never may preempt while it would
   * borrow (the share rule, not borrowWithinCohort, limits what it takes).
   */
  public FlavorAssigner(boolean fairSharing) {
    this.fairSharing = fairSharing;
  }

  public Assignment assign(AssignmentPlan plan, QuotaNode node) {
    if (plan.invalid != null) {
      return Assignment.noFit(plan.invalid);
    }
    Assignment full = attempt(plan, node, -1, 0);
    if (full.mode() == FlavorMode.Fit || !plan.partial()) {
      return full;
    }
    int ps = 0;
    while (plan.podSets[ps].minCount == null
        || plan.podSets[ps].minCount >= plan.podSets[ps].count) {
      ps++;
    }
    // Fit is monotone in the count on a given quota state, so the largest fitting count is found
    // by binary search between minCount and count - 1.
    int lo = plan.podSets[ps].minCount;
    int hi = plan.podSets[ps].count - 1;
    Assignment best = null;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      Assignment a = attempt(plan, node, ps, mid);
      if (a.mode() == FlavorMode.Fit) {
        best = a;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (best != null) {
      return best;
    }
    // The full count may exceed what the queue could ever get while minCount does not: such a
    // workload waits for quota (it is admitted partially once enough frees), so it must not read
    // as ExceedsMaxQuota. Its explanation is the one of its smallest admissible form.
    if (full.explanation() != null
        && full.explanation().reason() == PendingReason.ExceedsMaxQuota) {
      return attempt(plan, node, ps, plan.podSets[ps].minCount);
    }
    return full;
  }

  /** What {@code count} pods of the podSet hold of its k-th resource, shared claims once. */
  private static long held(AssignmentPlan.GroupRequest gr, int k, int count) {
    return Math.addExact(Math.multiplyExact(gr.perPod[k], (long) count), gr.once[k]);
  }

  private Assignment attempt(
      AssignmentPlan plan, QuotaNode node, int overrideIndex, int overrideCount) {
    FlavorFungibility fungibility = plan.queue.spec().flavorFungibility();
    PreemptionPolicy preemption = plan.queue.spec().preemption();
    boolean named = plan.podSets.length > 1;
    int capacity = 0;
    for (AssignmentPlan.PodSetPlan p : plan.podSets) {
      for (AssignmentPlan.GroupRequest g : p.groups) {
        capacity += g.perPod.length;
      }
    }
    int[] accFr = new int[capacity];
    long[] accAmount = new long[capacity];
    int accN = 0;
    FlavorMode overall = FlavorMode.Fit;
    boolean borrowsAny = false;
    List<Object> preemptNotes = null;
    Assignment.PodSetFlavors[] out = new Assignment.PodSetFlavors[plan.podSets.length];
    // Per podSet of a podSet group, the flavor option it took in each resource group.
    int[][] picked = new int[plan.podSets.length][];

    for (int i = 0; i < plan.podSets.length; i++) {
      AssignmentPlan.PodSetPlan ps = plan.podSets[i];
      int count = i == overrideIndex ? overrideCount : ps.count;
      int n = 0;
      for (AssignmentPlan.GroupRequest g : ps.groups) {
        n += g.perPod.length;
      }
      String[] resources = new String[n];
      String[] flavors = new String[n];
      int[] frs = new int[n];
      long[] usage = new long[n];
      long[] borrowed = new long[n];
      int slot = 0;
      if (ps.group != null) {
        picked[i] = new int[plan.queue.groups.length];
      }
      for (AssignmentPlan.GroupRequest gr : ps.groups) {
        CompiledQueue.Group group = plan.queue.groups[gr.group];
        int only = gr.pinnedBy >= 0 ? picked[gr.pinnedBy][gr.group] : -1;
        int bestOption = -1;
        FlavorMode bestMode = FlavorMode.NoFit;
        boolean bestBorrow = false;
        List<Object> notes = null;
        boolean allExceed = true;
        for (int f = 0; f < group.flavors.length; f++) {
          if (gr.mismatch[f] != null || (only >= 0 && f != only)) {
            continue;
          }
          CompiledQueue.Option option = group.flavors[f];
          FlavorMode mode = FlavorMode.Fit;
          boolean borrow = false;
          boolean exceeds = false;
          for (int k = 0; k < gr.perPod.length; k++) {
            int fr = option.frs[gr.resourcePos[k]];
            long need =
                held(gr, k, count)
                    + accumulated(accFr, accAmount, accN, fr)
                    + (gr.groupDemand == null ? 0 : gr.groupDemand[gr.resourcePos[k]]);
            long available = QuotaTree.available(node, fr);
            FlavorMode m;
            if (need <= available) {
              m = FlavorMode.Fit;
            } else {
              long potential = QuotaTree.potentialAvailable(node, fr);
              boolean over = need > potential;
              exceeds |= over;
              m = over ? FlavorMode.NoFit : whenShort(preemption, need, node, fr);
              if (notes == null) {
                notes = new ArrayList<>(2);
              }
              long own = held(gr, k, count);
              notes.add(
                  shortfall(
                      named ? ps.name : null,
                      group.resources[gr.resourcePos[k]],
                      option.name,
                      own,
                      need,
                      available,
                      potential,
                      node,
                      fr,
                      over));
            }
            // Under preemption the queue's own usage may be freed, so only need beyond nominal
            // borrows.
            long base = m == FlavorMode.Preempt ? 0 : node.usage(fr);
            if (base + need > node.nominal(fr)) {
              borrow = true;
            }
            mode = mode.worse(m);
          }
          if (gr.groupDemand != null) {
            // What the rest of the podSet group asks of resources this podSet does not request.
            for (int pos = 0; pos < gr.groupDemand.length; pos++) {
              if (gr.groupDemand[pos] == 0 || requests(gr, pos)) {
                continue;
              }
              int fr = option.frs[pos];
              long need = gr.groupDemand[pos] + accumulated(accFr, accAmount, accN, fr);
              if (need > QuotaTree.available(node, fr)) {
                boolean over = need > QuotaTree.potentialAvailable(node, fr);
                exceeds |= over;
                mode = mode.worse(over ? FlavorMode.NoFit : whenShort(preemption, need, node, fr));
              }
            }
          }
          allExceed &= exceeds;
          if (mode == FlavorMode.NoFit) {
            continue;
          }
          if (bestOption < 0 || preferred(mode, borrow, bestMode, bestBorrow, fungibility)) {
            bestOption = f;
            bestMode = mode;
            bestBorrow = borrow;
          }
          if (mode == FlavorMode.Fit
              && (!borrow
                  || fungibility.whenCanBorrow()
                      == FlavorFungibility.WhenCanBorrow.MayStopSearch)) {
            break;
          }
          if (mode == FlavorMode.Preempt
              && fungibility.whenCanPreempt() == FlavorFungibility.WhenCanPreempt.MayStopSearch) {
            break;
          }
        }
        if (bestOption < 0) {
          return Assignment.noFit(failure(gr, notes, allExceed, named ? ps.name : null));
        }
        if (bestMode == FlavorMode.Preempt) {
          if (preemptNotes == null) {
            preemptNotes = new ArrayList<>();
          }
          if (notes != null) {
            preemptNotes.addAll(notes);
          }
        }
        if (picked[i] != null) {
          picked[i][gr.group] = bestOption;
        }
        CompiledQueue.Option chosen = group.flavors[bestOption];
        for (int k = 0; k < gr.perPod.length; k++) {
          int fr = chosen.frs[gr.resourcePos[k]];
          long amount = held(gr, k, count);
          long before = node.usage(fr) + accumulated(accFr, accAmount, accN, fr);
          long nominal = node.nominal(fr);
          resources[slot] = group.resources[gr.resourcePos[k]];
          flavors[slot] = chosen.name;
          frs[slot] = fr;
          usage[slot] = amount;
          borrowed[slot] = Math.max(0, before + amount - nominal) - Math.max(0, before - nominal);
          slot++;
          accN = accumulate(accFr, accAmount, accN, fr, amount);
        }
        overall = overall.worse(bestMode);
        borrowsAny |= bestBorrow;
      }
      out[i] =
          new Assignment.PodSetFlavors(ps.name, count, resources, flavors, frs, usage, borrowed);
    }
    Explanation why =
        overall == FlavorMode.Fit
            ? null
            : Explanation.ofParts(PendingReason.WaitingForQuota, scarcestFirst(preemptNotes));
    return new Assignment(
        overall, borrowsAny, out, Arrays.copyOf(accFr, accN), Arrays.copyOf(accAmount, accN), why);
  }

  /** Preempt when the queue may take back what {@code need} lacks, else NoFit. */
  private FlavorMode whenShort(PreemptionPolicy preemption, long need, QuotaNode node, int fr) {
    boolean may =
        (preemption.canPreemptWithinNominal() && need <= node.nominal(fr))
            || preemption.canPreemptWhileBorrowing()
            || (fairSharing
                && preemption.reclaimWithinCohort() != PreemptionPolicy.ReclaimWithinCohort.Never);
    return may ? FlavorMode.Preempt : FlavorMode.NoFit;
  }

  private static boolean requests(AssignmentPlan.GroupRequest gr, int pos) {
    for (int p : gr.resourcePos) {
      if (p == pos) {
        return true;
      }
    }
    return false;
  }

  private static List<Object> scarcestFirst(List<Object> notes) {
    if (notes == null) {
      return List.of();
    }
    notes.sort(Shortfall.SCARCEST_FIRST);
    return notes;
  }

  private static Explanation failure(
      AssignmentPlan.GroupRequest gr, List<Object> notes, boolean allExceed, String podSet) {
    List<Object> parts = new ArrayList<>();
    if (notes != null) {
      parts.addAll(notes);
    }
    for (String m : gr.mismatch) {
      if (m != null) {
        parts.add(podSet == null ? m : "podSet " + podSet + ": " + m);
      }
    }
    parts.sort(Shortfall.SCARCEST_FIRST);
    PendingReason reason =
        !gr.anyMatch
            ? PendingReason.NoMatchingFlavor
            : allExceed ? PendingReason.ExceedsMaxQuota : PendingReason.WaitingForQuota;
    return Explanation.ofParts(reason, parts);
  }

  private static Shortfall shortfall(
      String podSet,
      String resource,
      String flavor,
      long own,
      long need,
      long available,
      long potential,
      QuotaNode node,
      int fr,
      boolean exceeds) {
    QuotaNode parent = node.parent();
    return new Shortfall(
        podSet,
        resource,
        flavor,
        own,
        need,
        available,
        node.nominal(fr),
        node.usage(fr),
        parent == null ? null : parent.name(),
        potential,
        node.borrowingLimit(fr),
        exceeds);
  }

  /**
   * Whether candidate (mode, borrow) beats the current best. BorrowingOverPreemption ranks Fit over
   * Preempt first, then not borrowing; PreemptionOverBorrowing ranks not borrowing first.
   */
  static boolean preferred(
      FlavorMode mode,
      boolean borrow,
      FlavorMode bestMode,
      boolean bestBorrow,
      FlavorFungibility fungibility) {
    int byMode = Integer.compare(mode.ordinal(), bestMode.ordinal());
    int byBorrow = Boolean.compare(bestBorrow, borrow);
    if (fungibility.effectivePreference() == FlavorFungibility.Preference.BorrowingOverPreemption) {
      return byMode != 0 ? byMode > 0 : byBorrow > 0;
    }
    return byBorrow != 0 ? byBorrow > 0 : byMode > 0;
  }

  private static long accumulated(int[] frs, long[] amounts, int n, int fr) {
    for (int i = 0; i < n; i++) {
      if (frs[i] == fr) {
        return amounts[i];
      }
    }
    return 0;
  }

  private static int accumulate(int[] frs, long[] amounts, int n, int fr, long amount) {
    for (int i = 0; i < n; i++) {
      if (frs[i] == fr) {
        amounts[i] += amount;
        return n;
      }
    }
    frs[n] = fr;
    amounts[n] = amount;
    return n + 1;
  }
}
