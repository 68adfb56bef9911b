package dev.berth.engine.flavor;

import dev.berth.engine.model.Explanation;

/**
 * The outcome of flavor assignment for one workload on one ClusterQueue: the mode (Fit, Preempt,
 * NoFit), whether it borrows, per podSet the flavor and usage of each resource, and, when it does
 * not fit, why.
 */
public final class Assignment {
  /** One podSet's assignment; arrays are parallel, one entry per requested resource. */
  public static final class PodSetFlavors {
    public final String name;
    public final int count;
    public final String[] resources;
    public final String[] flavors;
    public final int[] frs;
    public final long[] usage;
    public final long[] borrowed;

    PodSetFlavors(
        String name,
        int count,
        String[] resources,
        String[] flavors,
        int[] frs,
        long[] usage,
        long[] borrowed) {
      this.name = name;
      this.count = count;
      this.resources = resources;
      this.flavors = flavors;
      this.frs = frs;
      this.usage = usage;
      this.borrowed = borrowed;
    }
  }

  private final FlavorMode mode;
  private final boolean borrows;
  private final PodSetFlavors[] podSets;
  private final int[] frs;
  private final long[] usage;
  private final Explanation explanation;

  Assignment(
      FlavorMode mode,
      boolean borrows,
      PodSetFlavors[] podSets,
      int[] frs,
      long[] usage,
      Explanation explanation) {
    this.mode = mode;
    this.borrows = borrows;
    this.podSets = podSets;
    this.frs = frs;
    this.usage = usage;
    this.explanation = explanation;
  }

  static Assignment noFit(Explanation explanation) {
    return new Assignment(FlavorMode.NoFit, false, null, null, null, explanation);
  }

  public FlavorMode mode() {
    return mode;
  }

  public boolean borrows() {
    return borrows;
  }

  /** Per podSet assignment; null when mode is NoFit. */
  public PodSetFlavors[] podSets() {
    return podSets;
  }

  /** Distinct flavor-resources the workload uses, parallel to {@link #usage()}. */
  public int[] frs() {
    return frs;
  }

  public long[] usage() {
    return usage;
  }

  /** Why it is not Fit; null when it fits. */
  public Explanation explanation() {
    return explanation;
  }
}
