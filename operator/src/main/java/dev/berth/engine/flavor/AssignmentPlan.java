package dev.berth.engine.flavor;

import dev.berth.engine.model.Explanation;
import dev.berth.engine.model.PendingReason;
import dev.berth.engine.model.PodSet;
import java.util.ArrayList;
import java.util.List;

/**
 * What a workload shape asks of one ClusterQueue, precomputed once per (podSets, compiled queue):
 * requests grouped by resource group, and which flavors its labels and taints allow. Workloads with
 * identical podSets share a plan, so a re-evaluation does no map lookups or label matching.
 */
public final class AssignmentPlan {
  final CompiledQueue queue;
  final PodSetPlan[] podSets;

  /** Set when no flavor could ever serve a request (resource not covered). */
  final Explanation invalid;

  static final class PodSetPlan {
    final String name;
    final String group;
    final int count;
    final Integer minCount;
    final GroupRequest[] groups;

    PodSetPlan(String name, String group, int count, Integer minCount, GroupRequest[] groups) {
      this.name = name;
      this.group = group;
      this.count = count;
      this.minCount = minCount;
      this.groups = groups;
    }
  }

  static final class GroupRequest {
    final int group;
    final int[] resourcePos;
    final long[] perPod;

    /** Per resource, what the podSet holds once whatever its count (shared claims' devices). */
    final long[] once;

    /** Per flavor option: null when the podSet (and its podSet group) may use it, else why not. */
    final String[] mismatch;

    boolean anyMatch;

    /**
     * The earlier podSet of the same podSet group that chooses this resource group's flavor for the
     * whole group, or -1 when this podSet chooses it.
     */
    int pinnedBy = -1;

    /**
     * When this podSet chooses for its group: what the group's later podSets ask of this resource
     * group, per resource position (their pods times their counts), so that the flavor chosen fits
     * them all; else null.
     */
    long[] groupDemand;

    GroupRequest(int group, int[] resourcePos, long[] perPod, long[] once, String[] mismatch) {
      this.group = group;
      this.resourcePos = resourcePos;
      this.perPod = perPod;
      this.once = once;
      this.mismatch = mismatch;
      boolean any = false;
      for (String m : mismatch) {
        any |= m == null;
      }
      this.anyMatch = any;
    }
  }

  private AssignmentPlan(CompiledQueue queue, PodSetPlan[] podSets, Explanation invalid) {
    this.queue = queue;
    this.podSets = podSets;
    this.invalid = invalid;
  }

  public CompiledQueue queue() {
    return queue;
  }

  /** Whether some podSet allows partial admission. */
  public boolean partial() {
    for (PodSetPlan p : podSets) {
      if (p.minCount != null && p.minCount < p.count) {
        return true;
      }
    }
    return false;
  }

  public static AssignmentPlan of(CompiledQueue queue, List<PodSet> podSets) {
    PodSetPlan[] plans = new PodSetPlan[podSets.size()];
    for (int i = 0; i < plans.length; i++) {
      PodSet ps = podSets.get(i);
      List<List<long[]>> byGroup = new ArrayList<>();
      for (int g = 0; g < queue.groups.length; g++) {
        byGroup.add(new ArrayList<>());
      }
      java.util.Set<String> asked = new java.util.TreeSet<>(ps.requests().keySet());
      asked.addAll(ps.shared().keySet());
      for (String resource : asked) {
        long perPod = ps.requests().getOrDefault(resource, 0L);
        long once = ps.shared().getOrDefault(resource, 0L);
        if (perPod == 0 && once == 0) {
          continue;
        }
        Integer g = queue.groupOfResource.get(resource);
        if (g == null) {
          String msg =
              (podSets.size() > 1 ? "podSet " + ps.name() + ": " : "")
                  + "resource "
                  + resource
                  + " is not covered by ClusterQueue "
                  + queue.name();
          return new AssignmentPlan(
              queue, null, Explanation.of(PendingReason.NoMatchingFlavor, msg));
        }
        byGroup.get(g).add(new long[] {position(queue.groups[g], resource), perPod, once});
      }
      // The pods resource, when covered, counts one per pod (Kueue semantics).
      if (queue.covers("pods") && !ps.requests().containsKey("pods")) {
        int g = queue.groupOfResource.get("pods");
        byGroup.get(g).add(new long[] {position(queue.groups[g], "pods"), 1, 0});
      }
      List<GroupRequest> groups = new ArrayList<>();
      for (int g = 0; g < byGroup.size(); g++) {
        List<long[]> reqs = byGroup.get(g);
        if (reqs.isEmpty()) {
          continue;
        }
        int[] pos = new int[reqs.size()];
        long[] perPod = new long[reqs.size()];
        long[] once = new long[reqs.size()];
        for (int r = 0; r < pos.length; r++) {
          pos[r] = (int) reqs.get(r)[0];
          perPod[r] = reqs.get(r)[1];
          once[r] = reqs.get(r)[2];
        }
        CompiledQueue.Option[] options = queue.groups[g].flavors;
        String[] mismatch = new String[options.length];
        java.util.Set<String> groupResources = java.util.Set.of(queue.groups[g].resources);
        for (int f = 0; f < options.length; f++) {
          mismatch[f] =
              options[f].flavor == null
                  ? "flavor " + options[f].name + " does not exist"
                  : FlavorMatcher.mismatch(ps, options[f].flavor);
          if (mismatch[f] == null) {
            mismatch[f] = SharedClaimFit.mismatch(ps, options[f].flavor, groupResources);
          }
        }
        groups.add(new GroupRequest(g, pos, perPod, once, mismatch));
      }
      plans[i] =
          new PodSetPlan(
              ps.name(),
              ps.topologyRequest() == null ? null : ps.topologyRequest().group(),
              ps.count(),
              ps.minCount(),
              groups.toArray(new GroupRequest[0]));
    }
    linkPodSetGroups(queue, plans);
    return new AssignmentPlan(queue, plans, null);
  }

  /**
   * PodSets of one podSet group share a flavor per resource group: the first of them to ask for a
   * resource group chooses for all, with the others' demand added and their mismatches counted.
   */
  private static void linkPodSetGroups(CompiledQueue queue, PodSetPlan[] plans) {
    for (int i = 0; i < plans.length; i++) {
      if (plans[i].group == null) {
        continue;
      }
      for (GroupRequest gr : plans[i].groups) {
        int chooser = -1;
        for (int j = 0; j < i && chooser < 0; j++) {
          if (plans[i].group.equals(plans[j].group) && request(plans[j], gr.group) != null) {
            chooser = j;
          }
        }
        if (chooser >= 0) {
          gr.pinnedBy = chooser;
          continue;
        }
        for (int k = i + 1; k < plans.length; k++) {
          GroupRequest other =
              plans[i].group.equals(plans[k].group) ? request(plans[k], gr.group) : null;
          if (other == null) {
            continue;
          }
          if (gr.groupDemand == null) {
            gr.groupDemand = new long[queue.groups[gr.group].resources.length];
          }
          for (int r = 0; r < other.perPod.length; r++) {
            gr.groupDemand[other.resourcePos[r]] +=
                Math.multiplyExact(other.perPod[r], (long) plans[k].count) + other.once[r];
          }
          for (int f = 0; f < gr.mismatch.length; f++) {
            if (gr.mismatch[f] == null && other.mismatch[f] != null) {
              gr.mismatch[f] = "podSet " + plans[k].name + ": " + other.mismatch[f];
            }
          }
        }
        gr.anyMatch = java.util.Arrays.stream(gr.mismatch).anyMatch(m -> m == null);
      }
    }
  }

  private static GroupRequest request(PodSetPlan plan, int group) {
    for (GroupRequest gr : plan.groups) {
      if (gr.group == group) {
        return gr;
      }
    }
    return null;
  }

  private static int position(CompiledQueue.Group group, String resource) {
    for (int i = 0; i < group.resources.length; i++) {
      if (group.resources[i].equals(resource)) {
        return i;
      }
    }
    throw new IllegalStateException(resource);
  }
}
