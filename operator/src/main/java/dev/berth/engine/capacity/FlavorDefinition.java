package dev.berth.engine.capacity;

import java.util.Map;
import java.util.Objects;

/**
 * A ResourceFlavor as capacity accounting sees it: the labels that select its nodes and the
 * capacity kept back for the platform (canonical units, for the flavor as a whole).
 */
public record FlavorDefinition(
    String name, Map<String, String> nodeLabels, Map<String, Long> platformReservation) {

  public FlavorDefinition {
    Objects.requireNonNull(name, "name");
    nodeLabels = Map.copyOf(nodeLabels);
    platformReservation = Map.copyOf(platformReservation);
  }
}
