package dev.berth.engine.topology;

import java.util.Objects;

/** The outcome of placing one podSet: an assignment, or the reason and a message with numbers. */
public record Placement(TopologyAssignment assignment, String reason, String message) {
  public static final String PLACEMENT_FAILED = "TopologyPlacementFailed";

  static Placement placed(TopologyAssignment assignment) {
    return new Placement(Objects.requireNonNull(assignment), null, null);
  }

  static Placement failed(String message) {
    return new Placement(null, PLACEMENT_FAILED, message);
  }

  public boolean isPlaced() {
    return assignment != null;
  }
}
