package dev.berth.engine.flavor;

import dev.berth.engine.model.Explanation;
import dev.berth.engine.model.PendingReason;
import dev.berth.engine.model.PodSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
    final int count;
    final Integer minCount;
    final GroupRequest[] groups;

    PodSetPlan(String name, int count, Integer minCount, GroupRequest[] groups) {
      this.name = name;
      this.count = count;
      this.minCount = minCount;
      this.groups = groups;
    }
  }

  static final class GroupRequest {
    final int group;
    final int[] resourcePos;
    final long[] perPod;

    /** Per flavor option: null when the podSet may use it, else why not. */
    final String[] mismatch;

    final boolean anyMatch;

    GroupRequest(int group, int[] resourcePos, long[] perPod, String[] mismatch) {
      this.group = group;
      this.resourcePos = resourcePos;
      this.perPod = perPod;
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
      for (Map.Entry<String, Long> req : ps.requests().entrySet()) {
        if (req.getValue() == 0) {
          continue;
        }
        Integer g = queue.groupOfResource.get(req.getKey());
        if (g == null) {
          String msg =
              (podSets.size() > 1 ? "podSet " + ps.name() + ": " : "")
                  + "resource "
                  + req.getKey()
                  + " is not covered by ClusterQueue "
                  + queue.name();
          return new AssignmentPlan(
              queue, null, Explanation.of(PendingReason.NoMatchingFlavor, msg));
        }
        byGroup.get(g).add(new long[] {position(queue.groups[g], req.getKey()), req.getValue()});
      }
      // The pods resource, when covered, counts one per pod (Kueue semantics).
      if (queue.covers("pods") && !ps.requests().containsKey("pods")) {
        int g = queue.groupOfResource.get("pods");
        byGroup.get(g).add(new long[] {position(queue.groups[g], "pods"), 1});
      }
      List<GroupRequest> groups = new ArrayList<>();
      for (int g = 0; g < byGroup.size(); g++) {
        List<long[]> reqs = byGroup.get(g);
        if (reqs.isEmpty()) {
          continue;
        }
        int[] pos = new int[reqs.size()];
        long[] perPod = new long[reqs.size()];
        for (int r = 0; r < pos.length; r++) {
          pos[r] = (int) reqs.get(r)[0];
          perPod[r] = reqs.get(r)[1];
        }
        CompiledQueue.Option[] options = queue.groups[g].flavors;
        String[] mismatch = new String[options.length];
        for (int f = 0; f < options.length; f++) {
          mismatch[f] =
              options[f].flavor == null
                  ? "flavor " + options[f].name + " does not exist"
                  : FlavorMatcher.mismatch(ps, options[f].flavor);
        }
        groups.add(new GroupRequest(g, pos, perPod, mismatch));
      }
      plans[i] =
          new PodSetPlan(ps.name(), ps.count(), ps.minCount(), groups.toArray(new GroupRequest[0]));
    }
    return new AssignmentPlan(queue, plans, null);
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
