package dev.berth.engine.topology;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One domain of a topology level (or the root above the outermost level). Invariant: {@code free}
 * equals the sum of the children's {@code free}, kept on every change by walking the ancestors.
 */
final class TopologyDomain {
  final int id;

  /** Index into the topology's levels; -1 for the root. */
  final int level;

  /** The domain's value at levels 0..level. */
  final String[] values;

  final TopologyDomain parent;
  final List<TopologyDomain> children = new ArrayList<>();
  final long[] free;

  /** The values joined, for lookups and deterministic ties. */
  private final String key;

  /** Allocatable of a leaf (the capacity bound pods give back to); null above the leaves. */
  long[] allocatable;

  TopologyDomain(int id, int level, String[] values, TopologyDomain parent, int resources) {
    this.id = id;
    this.level = level;
    this.values = values;
    this.parent = parent;
    this.free = new long[resources];
    this.key = String.join("\u0000", values);
  }

  boolean isLeaf() {
    return children.isEmpty() && allocatable != null;
  }

  /** Adds {@code delta} to this domain's free capacity and every ancestor's. */
  void addFree(int resource, long delta) {
    for (TopologyDomain d = this; d != null; d = d.parent) {
      d.free[resource] += delta;
    }
  }

  List<String> valueList() {
    return List.of(values);
  }

  /** Sort key for deterministic ties. */
  String key() {
    return key;
  }

  @Override
  public String toString() {
    return Arrays.toString(values);
  }
}
