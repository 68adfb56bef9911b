package dev.berth.engine.capacity;

import java.util.Map;
import java.util.Objects;

/**
 * A ResourceFlavor as capacity accounting sees it: the labels that select its nodes, the capacity
 * kept back for the platform (canonical units, for the flavor as a whole), and which of its nodes'
 * DRA devices count ({@code deviceView}: {@link CapacityInventory#ALL_DEVICES}, or the view of the
 * devices its device selectors select).
 */
public record FlavorDefinition(
    String name,
    Map<String, String> nodeLabels,
    Map<String, Long> platformReservation,
    String deviceView) {

  public FlavorDefinition {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(deviceView, "deviceView");
    nodeLabels = Map.copyOf(nodeLabels);
    platformReservation = Map.copyOf(platformReservation);
  }

  /** A flavor whose nodes' DRA devices all count. */
  public FlavorDefinition(
      String name, Map<String, String> nodeLabels, Map<String, Long> platformReservation) {
    this(name, nodeLabels, platformReservation, CapacityInventory.ALL_DEVICES);
  }
}
