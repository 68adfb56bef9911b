package dev.berth.engine.quota;

import java.util.ArrayList;
import java.util.List;

/**
 * A ClusterQueue or cohort in the quota tree, with per flavor-resource arrays indexed by {@link
 * FlavorResources}. {@code usage} of a ClusterQueue is what its admitted workloads use; of a
 * cohort, what its children use beyond the quota they keep for themselves (their "guaranteed").
 */
public final class QuotaNode {
  /** Marks an absent borrowingLimit or lendingLimit. */
  public static final long NONE = -1;

  final String name;
  final boolean cohort;
  QuotaNode parent;
  final List<QuotaNode> children = new ArrayList<>();
  long[] nominal;
  long[] borrowingLimit;
  long[] lendingLimit;
  long[] subtreeQuota;
  long[] guaranteed;
  long[] usage;
  QuotaNode root;
  String inactiveMessage;

  /** The fair-sharing weight in thousandths (1000 = weight 1; 0 = never favoured). */
  long fairWeight = 1000;

  /** Bumped on every usage change anywhere in the tree (kept on the root only). */
  long version;

  /** Dense index of the tree this node belongs to (meaningful once active). */
  int treeIndex = -1;

  /** On roots: the ClusterQueues of the tree. */
  final List<String> clusterQueues = new ArrayList<>();

  QuotaNode(String name, boolean cohort, int size) {
    this.name = name;
    this.cohort = cohort;
    nominal = new long[size];
    borrowingLimit = filled(size);
    lendingLimit = filled(size);
    subtreeQuota = new long[size];
    guaranteed = new long[size];
    usage = new long[size];
  }

  private static long[] filled(int size) {
    long[] a = new long[size];
    java.util.Arrays.fill(a, NONE);
    return a;
  }

  public String name() {
    return name;
  }

  public boolean isCohort() {
    return cohort;
  }

  /** The parent cohort, or null for a root. */
  public QuotaNode parent() {
    return parent;
  }

  public QuotaNode root() {
    return root;
  }

  public int treeIndex() {
    return treeIndex;
  }

  public boolean active() {
    return inactiveMessage == null;
  }

  /** Why the node cannot admit (a cohort cycle), or null. */
  public String inactiveMessage() {
    return inactiveMessage;
  }

  public long version() {
    return root == null ? 0 : root.version;
  }

  public long nominal(int fr) {
    return fr < nominal.length ? nominal[fr] : 0;
  }

  /** The borrowing limit, or {@link #NONE}. */
  public long borrowingLimit(int fr) {
    return fr < borrowingLimit.length ? borrowingLimit[fr] : NONE;
  }

  /** The lending limit, or {@link #NONE}. */
  public long lendingLimit(int fr) {
    return fr < lendingLimit.length ? lendingLimit[fr] : NONE;
  }

  public long usage(int fr) {
    return fr < usage.length ? usage[fr] : 0;
  }

  public long subtreeQuota(int fr) {
    return fr < subtreeQuota.length ? subtreeQuota[fr] : 0;
  }

  /** The part of the quota the node keeps for itself and never lends. */
  public long guaranteed(int fr) {
    return fr < guaranteed.length ? guaranteed[fr] : 0;
  }

  /** The fair-sharing weight among the parent's children, in thousandths. */
  public long fairWeight() {
    return fairWeight;
  }

  /** ClusterQueue names of the tree; only filled on roots. */
  public List<String> clusterQueues() {
    return clusterQueues;
  }
}
