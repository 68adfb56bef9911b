package dev.berth.engine.topology;

import java.util.Objects;

/**
 * How a podSet asks to be placed: {@code required} (all pods in one domain of the level, else not
 * admitted), {@code preferred} (try that level, then each level up, then spread) or {@code
 * unconstrained} (fewest domains anywhere); optionally in slices of {@code sliceSize} pods, each
 * slice inside one domain of {@code sliceLevel}; {@code group} names the podSets placed with it
 * (null for none).
 */
public record TopologyRequest(
    Mode mode, String level, int sliceSize, String sliceLevel, String group) {
  /** The pod-template annotation that asked for the placement. */
  public enum Mode {
    REQUIRED,
    PREFERRED,
    UNCONSTRAINED
  }

  public TopologyRequest {
    Objects.requireNonNull(mode, "mode");
    if (mode != Mode.UNCONSTRAINED) {
      Objects.requireNonNull(level, "level");
    }
    if (sliceSize < 1) {
      throw new IllegalArgumentException("slice size must be at least 1, got " + sliceSize);
    }
    if (sliceSize > 1) {
      Objects.requireNonNull(sliceLevel, "sliceLevel");
    }
  }

  public static TopologyRequest required(String level) {
    return new TopologyRequest(Mode.REQUIRED, level, 1, null, null);
  }

  public static TopologyRequest preferred(String level) {
    return new TopologyRequest(Mode.PREFERRED, level, 1, null, null);
  }

  public static TopologyRequest unconstrained() {
    return new TopologyRequest(Mode.UNCONSTRAINED, null, 1, null, null);
  }

  /** Every group of {@code size} pods shares one domain of {@code level}. */
  public TopologyRequest inSlices(int size, String level) {
    return new TopologyRequest(mode, this.level, size, level, group);
  }

  /**
   * The podSet belongs to a group of the workload's podSets (a leader and its workers) that share
   * one flavor and, at a required level, one domain.
   */
  public TopologyRequest inGroup(String name) {
    return new TopologyRequest(mode, level, sliceSize, sliceLevel, name);
  }

  boolean sliced() {
    return sliceLevel != null;
  }
}
