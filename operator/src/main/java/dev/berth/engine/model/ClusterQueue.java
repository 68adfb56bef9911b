package dev.berth.engine.model;

import java.util.List;
import java.util.Objects;

/**
 * The engine's view of a ClusterQueue. {@code namespaceSelector == null} matches no namespace;
 * {@link LabelSelector#ALL} matches all. Quantities are in canonical units.
 */
public record ClusterQueue(
    String name,
    String cohort,
    List<ResourceGroup> resourceGroups,
    QueueingStrategy queueingStrategy,
    LabelSelector namespaceSelector,
    FlavorFungibility flavorFungibility,
    PreemptionPolicy preemption,
    StopPolicy stopPolicy) {
  public ClusterQueue {
    Objects.requireNonNull(name, "name");
    cohort = cohort == null || cohort.isEmpty() ? null : cohort;
    resourceGroups = resourceGroups == null ? List.of() : List.copyOf(resourceGroups);
    queueingStrategy = queueingStrategy == null ? QueueingStrategy.BestEffortFIFO : queueingStrategy;
    flavorFungibility = flavorFungibility == null ? FlavorFungibility.DEFAULT : flavorFungibility;
    preemption = preemption == null ? PreemptionPolicy.NEVER : preemption;
    stopPolicy = stopPolicy == null ? StopPolicy.None : stopPolicy;
  }
}
