package dev.berth.engine.quota;

import dev.berth.engine.model.ClusterQueue;
import dev.berth.engine.model.Cohort;
import dev.berth.engine.model.FlavorQuotas;
import dev.berth.engine.model.ResourceGroup;
import dev.berth.engine.model.ResourceQuota;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * ClusterQueues and cohorts as a forest, with the quota arithmetic of the admission semantics: a
 * node keeps {@code guaranteed = subtreeQuota - lendingLimit} for itself and stores the rest in its
 * parent's pool; {@code available} is unused kept quota plus what can still be drawn from the
 * parent, bounded by the borrowing limit, level by level. Rebuilt whenever a ClusterQueue, Cohort
 * or flavor changes; usage changes are incremental.
 */
public final class QuotaTree {
  private final Map<String, QuotaNode> clusterQueues = new HashMap<>();
  private final Map<String, QuotaNode> cohorts = new TreeMap<>();
  private final List<QuotaNode> roots = new ArrayList<>();
  private final int size;

  private QuotaTree(int size) {
    this.size = size;
  }

  /**
   * Builds the tree. {@code usageOf} gives each ClusterQueue's current usage array (at least {@code
   * frs.size()} long); the ClusterQueue node shares it, so usage survives a rebuild.
   */
  public static QuotaTree build(
      Collection<ClusterQueue> queues,
      Collection<Cohort> explicitCohorts,
      FlavorResources frs,
      Function<String, long[]> usageOf) {
    QuotaTree tree = new QuotaTree(frs.size());
    for (Cohort c : explicitCohorts) {
      QuotaNode node = tree.cohortNode(c.name());
      node.fairWeight = c.fairSharingWeight();
      applyQuotas(node, c.resourceGroups(), frs);
      if (c.parentName() != null) {
        node.parent = tree.cohortNode(c.parentName());
      }
    }
    for (ClusterQueue cq : queues) {
      QuotaNode node = new QuotaNode(cq.name(), false, tree.size);
      node.usage = usageOf.apply(cq.name());
      node.fairWeight = cq.fairSharingWeight();
      applyQuotas(node, cq.resourceGroups(), frs);
      if (cq.cohort() != null) {
        node.parent = tree.cohortNode(cq.cohort());
      }
      tree.clusterQueues.put(cq.name(), node);
    }
    tree.markCycles();
    tree.link();
    return tree;
  }

  private QuotaNode cohortNode(String name) {
    return cohorts.computeIfAbsent(name, n -> new QuotaNode(n, true, size));
  }

  private static void applyQuotas(QuotaNode node, List<ResourceGroup> groups, FlavorResources frs) {
    for (ResourceGroup g : groups) {
      for (FlavorQuotas f : g.flavors()) {
        for (ResourceQuota q : f.resources()) {
          int fr = frs.find(f.name(), q.name());
          if (fr < 0 || fr >= node.nominal.length) {
            throw new IllegalStateException(
                "flavor-resource " + f.name() + "/" + q.name() + " not interned");
          }
          node.nominal[fr] = q.nominalQuota();
          node.borrowingLimit[fr] =
              q.borrowingLimit() == null ? QuotaNode.NONE : q.borrowingLimit();
          node.lendingLimit[fr] = q.lendingLimit() == null ? QuotaNode.NONE : q.lendingLimit();
        }
      }
    }
  }

  /** Marks every cohort on a parent cycle, and everything below one, inactive. */
  private void markCycles() {
    Map<QuotaNode, Integer> state = new HashMap<>();
    for (QuotaNode start : cohorts.values()) {
      List<QuotaNode> path = new ArrayList<>();
      QuotaNode n = start;
      while (n != null && !state.containsKey(n)) {
        state.put(n, 1);
        path.add(n);
        n = n.parent;
      }
      if (n != null && state.get(n) == 1) {
        int from = path.indexOf(n);
        StringBuilder sb = new StringBuilder("cohort cycle: ");
        for (int i = from; i < path.size(); i++) {
          sb.append(path.get(i).name).append(" -> ");
        }
        sb.append(n.name);
        String message = sb.toString();
        for (int i = from; i < path.size(); i++) {
          path.get(i).inactiveMessage = message;
        }
      }
      for (QuotaNode p : path) {
        state.put(p, 2);
      }
    }
  }

  private void link() {
    List<QuotaNode> all = new ArrayList<>(cohorts.values());
    all.addAll(new TreeMap<>(clusterQueues).values());
    for (QuotaNode n : all) {
      String inherited = inheritedInactive(n);
      if (inherited != null) {
        n.inactiveMessage = inherited;
        continue;
      }
      if (n.parent != null) {
        n.parent.children.add(n);
      }
    }
    for (QuotaNode n : all) {
      if (n.active() && n.parent == null) {
        n.treeIndex = roots.size();
        roots.add(n);
        computeSubtree(n, n);
      }
    }
  }

  private static String inheritedInactive(QuotaNode n) {
    int guard = 0;
    for (QuotaNode p = n; p != null && guard++ < 100_000; p = p.parent) {
      if (p.inactiveMessage != null) {
        return p.inactiveMessage;
      }
    }
    return null;
  }

  /** Post-order: subtree quota, guaranteed quota and cohort usage from the children. */
  private void computeSubtree(QuotaNode n, QuotaNode root) {
    n.root = root;
    n.treeIndex = root.treeIndex;
    if (!n.cohort) {
      root.clusterQueues.add(n.name);
    }
    System.arraycopy(n.nominal, 0, n.subtreeQuota, 0, size);
    if (n.cohort) {
      java.util.Arrays.fill(n.usage, 0);
    }
    for (QuotaNode c : n.children) {
      computeSubtree(c, root);
      for (int fr = 0; fr < size; fr++) {
        n.subtreeQuota[fr] += c.subtreeQuota[fr] - c.guaranteed[fr];
        n.usage[fr] += Math.max(0, c.usage[fr] - c.guaranteed[fr]);
      }
    }
    for (int fr = 0; fr < size; fr++) {
      n.guaranteed[fr] =
          n.lendingLimit[fr] == QuotaNode.NONE
              ? 0
              : Math.max(0, n.subtreeQuota[fr] - n.lendingLimit[fr]);
    }
  }

  public QuotaNode clusterQueue(String name) {
    return clusterQueues.get(name);
  }

  public QuotaNode cohort(String name) {
    return cohorts.get(name);
  }

  public List<QuotaNode> roots() {
    return roots;
  }

  public Collection<QuotaNode> cohorts() {
    return cohorts.values();
  }

  /** How much of a flavor-resource the node can still take, given everyone's current usage. */
  public static long available(QuotaNode n, int fr) {
    if (fr >= n.subtreeQuota.length || !n.active()) {
      return 0;
    }
    if (n.parent == null) {
      return n.subtreeQuota[fr] - n.usage[fr];
    }
    long local = Math.max(0, n.guaranteed[fr] - n.usage[fr]);
    return local + fromParent(n, fr);
  }

  /**
   * The part of {@link #available} drawn from the parent's pool, bounded by the borrowing limit.
   */
  public static long fromParent(QuotaNode n, int fr) {
    if (n.parent == null || fr >= n.subtreeQuota.length || !n.active()) {
      return 0;
    }
    long parentAvailable = available(n.parent, fr);
    if (n.borrowingLimit[fr] != QuotaNode.NONE) {
      long storedInParent = n.subtreeQuota[fr] - n.guaranteed[fr];
      long usedInParent = Math.max(0, n.usage[fr] - n.guaranteed[fr]);
      parentAvailable =
          Math.min(storedInParent - usedInParent + n.borrowingLimit[fr], parentAvailable);
    }
    return parentAvailable;
  }

  /** What the node could take if nothing in the cluster were in use (its maximum ever). */
  public static long potentialAvailable(QuotaNode n, int fr) {
    if (fr >= n.subtreeQuota.length || !n.active()) {
      return 0;
    }
    if (n.parent == null) {
      return n.subtreeQuota[fr];
    }
    long parentPotential = potentialAvailable(n.parent, fr);
    if (n.borrowingLimit[fr] != QuotaNode.NONE) {
      parentPotential =
          Math.min(n.subtreeQuota[fr] - n.guaranteed[fr] + n.borrowingLimit[fr], parentPotential);
    }
    return n.guaranteed[fr] + parentPotential;
  }

  /**
   * Adds usage to a node; what exceeds the node's unused kept quota is stored in the parent. An
   * inactive node (on or below a cohort cycle) is in no tree: only its own usage changes, so that
   * walking up a parent cycle cannot loop forever.
   */
  public static void addUsage(QuotaNode n, int fr, long value) {
    bump(n);
    if (!n.active()) {
      n.usage[fr] += value;
      return;
    }
    for (QuotaNode node = n; node != null && value > 0; node = node.parent) {
      long localAvailable = Math.max(0, node.guaranteed[fr] - node.usage[fr]);
      node.usage[fr] += value;
      value -= localAvailable;
    }
  }

  /** Removes usage; the parent gives back what the node had stored in it. */
  public static void removeUsage(QuotaNode n, int fr, long value) {
    bump(n);
    if (!n.active()) {
      n.usage[fr] -= value;
      return;
    }
    for (QuotaNode node = n; node != null && value > 0; node = node.parent) {
      long storedInParent = node.usage[fr] - node.guaranteed[fr];
      node.usage[fr] -= value;
      value = Math.min(value, storedInParent);
    }
  }

  private static void bump(QuotaNode n) {
    if (n.root != null) {
      n.root.version++;
    }
  }
}
