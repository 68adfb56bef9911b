package dev.berth.engine.topology;

import dev.berth.engine.quota.Quantity;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Places a podSet of identical pods on a {@link NodeInventory}: the fewest domains, best-fitted
 * (the smallest domain that still fits), level by level from the chosen domain down to the leaves.
 * Pure: reads the inventory, never changes it; the caller adds the placement once it admits.
 */
public final class TopologyPlacer {

  /** Places {@code count} pods, each requesting {@code perPod} (canonical units). */
  public Placement place(
      NodeInventory inventory, int count, Map<String, Long> perPod, TopologyRequest request) {
    List<String> levels = inventory.levels();
    int leafLevel = levels.size() - 1;
    int level =
        request.mode() == TopologyRequest.Mode.UNCONSTRAINED ? -1 : levels.indexOf(request.level());
    if (request.mode() != TopologyRequest.Mode.UNCONSTRAINED && level < 0) {
      return Placement.failed(
          "level "
              + request.level()
              + " is not a level of topology "
              + inventory.topology().name()
              + " "
              + levels);
    }
    int sliceLevel = request.sliced() ? levels.indexOf(request.sliceLevel()) : leafLevel;
    if (sliceLevel < 0) {
      return Placement.failed(
          "slice level "
              + request.sliceLevel()
              + " is not a level of topology "
              + inventory.topology().name()
              + " "
              + levels);
    }
    if (sliceLevel < level) {
      return Placement.failed(
          "slice level " + request.sliceLevel() + " is above the podSet level " + request.level());
    }
    int sliceSize = request.sliceSize();
    if (count <= 0 || count % sliceSize != 0) {
      return Placement.failed(count + " pods cannot be cut into slices of " + sliceSize);
    }

    Search s = new Search(inventory, perPod, sliceSize, sliceLevel);
    long need = count / sliceSize;
    switch (request.mode()) {
      case REQUIRED:
        {
          TopologyDomain d = s.bestFit(inventory.domainsAt(level), need);
          return d != null
              ? s.assign(d, need)
              : Placement.failed(s.requiredMessage(count, request, level));
        }
      case PREFERRED:
        for (int l = level; l >= 0; l--) {
          TopologyDomain d = s.bestFit(inventory.domainsAt(l), need);
          if (d != null) {
            return s.assign(d, need);
          }
        }
        break;
      default:
        break;
    }
    TopologyDomain root = inventory.root();
    if (s.slices[root.id] >= need) {
      return s.assign(root, need);
    }
    return Placement.failed(
        s.needs(count, request)
            + (request.mode() == TopologyRequest.Mode.PREFERRED
                ? " (preferred in one " + request.level() + ")"
                : "")
            + "; the whole topology fits "
            + s.unit(s.slices[root.id]));
  }

  /** Counts for one request shape and the recursive assignment built from them. */
  private static final class Search {
    final NodeInventory inventory;
    final Map<String, Long> perPod;
    final int sliceSize;
    final int sliceLevel;
    final long[] pods;

    /** Whole slices that fit per domain at or above the slice level. */
    final long[] slices;

    final List<TopologyDomain> leaves = new ArrayList<>();
    final List<Long> leafCounts = new ArrayList<>();

    Search(NodeInventory inventory, Map<String, Long> perPod, int sliceSize, int sliceLevel) {
      this.inventory = inventory;
      this.perPod = perPod;
      this.sliceSize = sliceSize;
      this.sliceLevel = sliceLevel;
      this.pods = inventory.podCounts(inventory.vector(perPod));
      this.slices = new long[pods.length];
      for (int l = sliceLevel; l >= 0; l--) {
        for (TopologyDomain d : inventory.domainsAt(l)) {
          if (l == sliceLevel) {
            slices[d.id] = pods[d.id] / sliceSize;
          }
          slices[d.parent.id] += slices[d.id];
        }
      }
    }

    /** The smallest domain holding at least {@code need} slices; ties go to the first by values. */
    TopologyDomain bestFit(List<TopologyDomain> candidates, long need) {
      TopologyDomain best = null;
      for (TopologyDomain d : candidates) {
        long c = slices[d.id];
        if (c >= need
            && (best == null
                || c < slices[best.id]
                || (c == slices[best.id] && d.key().compareTo(best.key()) < 0))) {
          best = d;
        }
      }
      return best;
    }

    Placement assign(TopologyDomain domain, long needSlices) {
      assignSlices(domain, needSlices);
      TreeMap<String, TopologyAssignment.Domain> sorted = new TreeMap<>();
      for (int i = 0; i < leaves.size(); i++) {
        TopologyDomain leaf = leaves.get(i);
        sorted.put(
            leaf.key(),
            new TopologyAssignment.Domain(leaf.valueList(), Math.toIntExact(leafCounts.get(i))));
      }
      return Placement.placed(
          new TopologyAssignment(inventory.levels(), new ArrayList<>(sorted.values())));
    }

    private void assignSlices(TopologyDomain d, long needSlices) {
      if (d.level == sliceLevel) {
        assignPods(d, needSlices * sliceSize);
        return;
      }
      for (Share share : fewestBestFit(d.children, slices, needSlices)) {
        assignSlices(share.domain, share.amount);
      }
    }

    private void assignPods(TopologyDomain d, long needPods) {
      if (d.children.isEmpty()) {
        leaves.add(d);
        leafCounts.add(needPods);
        return;
      }
      for (Share share : fewestBestFit(d.children, pods, needPods)) {
        assignPods(share.domain, share.amount);
      }
    }

    /**
     * Fewest children covering {@code need}: take the largest while none covers the remainder
     * alone, then the smallest that does (best fit, so large domains stay whole).
     */
    private static List<Share> fewestBestFit(
        List<TopologyDomain> children, long[] capacity, long need) {
      List<TopologyDomain> order = new ArrayList<>(children);
      order.sort(
          Comparator.<TopologyDomain>comparingLong(c -> -capacity[c.id])
              .thenComparing(TopologyDomain::key));
      List<Share> shares = new ArrayList<>();
      long remaining = need;
      int next = 0;
      while (remaining > 0) {
        TopologyDomain fit = null;
        for (int i = next; i < order.size(); i++) {
          long c = capacity[order.get(i).id];
          if (c >= remaining && (fit == null || c < capacity[fit.id])) {
            fit = order.get(i); // the smallest that fits; among equals the first by values
          }
        }
        if (fit != null) {
          shares.add(new Share(fit, remaining));
          return shares;
        }
        if (next == order.size()) {
          throw new IllegalStateException("children hold less than their parent's count " + need);
        }
        TopologyDomain largest = order.get(next++);
        shares.add(new Share(largest, capacity[largest.id]));
        remaining -= capacity[largest.id];
      }
      return shares;
    }

    String requiredMessage(int count, TopologyRequest request, int level) {
      String levelName = Topology.shortName(request.level());
      TopologyDomain largest = null;
      for (TopologyDomain d : inventory.domainsAt(level)) {
        if (largest == null
            || slices[d.id] > slices[largest.id]
            || (slices[d.id] == slices[largest.id] && d.key().compareTo(largest.key()) < 0)) {
          largest = d;
        }
      }
      String tail =
          largest == null
              ? "; no eligible node has the topology's labels"
              : "; the largest "
                  + levelName
                  + " fits "
                  + unit(slices[largest.id])
                  + " ("
                  + describe(largest)
                  + ")";
      return needs(count, request) + " in one " + request.level() + tail;
    }

    String needs(int count, TopologyRequest request) {
      String shape = "of " + describe(perPod);
      if (request.sliced()) {
        return "needs "
            + plural(count / sliceSize, "slice")
            + " of "
            + plural(sliceSize, "pod")
            + " "
            + shape
            + " (each slice in one "
            + request.sliceLevel()
            + ")";
      }
      return "needs " + plural(count, "pod") + " " + shape;
    }

    String unit(long n) {
      return sliceSize > 1 || sliceLevel != inventory.levels().size() - 1
          ? plural(n, "slice")
          : plural(n, "pod");
    }

    private String describe(TopologyDomain d) {
      StringBuilder sb = new StringBuilder();
      List<String> levels = inventory.levels();
      for (int l = d.level; l >= 0; l--) {
        sb.append(l == d.level ? "" : " in ")
            .append(Topology.shortName(levels.get(l)))
            .append(' ')
            .append(d.values[l]);
      }
      return sb.toString();
    }

    private static String describe(Map<String, Long> perPod) {
      StringBuilder sb = new StringBuilder();
      new TreeMap<>(perPod)
          .forEach(
              (r, v) ->
                  sb.append(sb.length() == 0 ? "" : ", ")
                      .append(r)
                      .append(' ')
                      .append(Quantity.format(r, v)));
      return sb.toString();
    }

    private static String plural(long n, String word) {
      return n + " " + word + (n == 1 ? "" : "s");
    }
  }

  private record Share(TopologyDomain domain, long amount) {}
}
