package dev.berth.engine.model;

import java.util.List;
import java.util.Objects;

/**
 * The engine's view of a ClusterQueue. {@code namespaceSelector == null} matches no namespace;
 * {@link LabelSelector#ALL} matches all. Quantities are in canonical units; {@code
 * fairSharingWeight} is in thousandths (1000 = weight 1, the default; 0 = never favoured while
 * borrowing). {@code minimumRuntimeMillis}: how long each of its admitted workloads runs before
 * another queue may preempt it (reclamation, fair sharing, borrowWithinCohort); 0, the default, for
 * no protection. Preemption by a higher priority within the queue is not held back. {@code
 * borrowBackoffMillis}: how long it admits nothing that borrows after its borrowed quota was
 * reclaimed; 0, the default, for no pause. {@code preemptionLimit}: how many workloads its
 * preemptors may evict per window; null for no bound.
 */
public record ClusterQueue(
    String name,
    String cohort,
    List<ResourceGroup> resourceGroups,
    QueueingStrategy queueingStrategy,
    LabelSelector namespaceSelector,
    FlavorFungibility flavorFungibility,
    PreemptionPolicy preemption,
    StopPolicy stopPolicy,
    Long fairSharingWeight,
    Long minimumRuntimeMillis,
    Long borrowBackoffMillis,
    PreemptionLimit preemptionLimit) {
  /** A ClusterQueue without a bound on its preemptions. */
  public ClusterQueue(
      String name,
      String cohort,
      List<ResourceGroup> resourceGroups,
      QueueingStrategy queueingStrategy,
      LabelSelector namespaceSelector,
      FlavorFungibility flavorFungibility,
      PreemptionPolicy preemption,
      StopPolicy stopPolicy,
      Long fairSharingWeight,
      Long minimumRuntimeMillis,
      Long borrowBackoffMillis) {
    this(
        name,
        cohort,
        resourceGroups,
        queueingStrategy,
        namespaceSelector,
        flavorFungibility,
        preemption,
        stopPolicy,
        fairSharingWeight,
        minimumRuntimeMillis,
        borrowBackoffMillis,
        null);
  }

  /** A ClusterQueue without a pause in borrowing after a reclaim. */
  public ClusterQueue(
      String name,
      String cohort,
      List<ResourceGroup> resourceGroups,
      QueueingStrategy queueingStrategy,
      LabelSelector namespaceSelector,
      FlavorFungibility flavorFungibility,
      PreemptionPolicy preemption,
      StopPolicy stopPolicy,
      Long fairSharingWeight,
      Long minimumRuntimeMillis) {
    this(
        name,
        cohort,
        resourceGroups,
        queueingStrategy,
        namespaceSelector,
        flavorFungibility,
        preemption,
        stopPolicy,
        fairSharingWeight,
        minimumRuntimeMillis,
        null);
  }

  /** A ClusterQueue without a minimum runtime. */
  public ClusterQueue(
      String name,
      String cohort,
      List<ResourceGroup> resourceGroups,
      QueueingStrategy queueingStrategy,
      LabelSelector namespaceSelector,
      FlavorFungibility flavorFungibility,
      PreemptionPolicy preemption,
      StopPolicy stopPolicy,
      Long fairSharingWeight) {
    this(
        name,
        cohort,
        resourceGroups,
        queueingStrategy,
        namespaceSelector,
        flavorFungibility,
        preemption,
        stopPolicy,
        fairSharingWeight,
        null,
        null);
  }

  /** A ClusterQueue with the default fair-sharing weight (1). */
  public ClusterQueue(
      String name,
      String cohort,
      List<ResourceGroup> resourceGroups,
      QueueingStrategy queueingStrategy,
      LabelSelector namespaceSelector,
      FlavorFungibility flavorFungibility,
      PreemptionPolicy preemption,
      StopPolicy stopPolicy) {
    this(
        name,
        cohort,
        resourceGroups,
        queueingStrategy,
        namespaceSelector,
        flavorFungibility,
        preemption,
        stopPolicy,
        null,
        null,
        null);
  }

  public ClusterQueue {
    Objects.requireNonNull(name, "name");
    cohort = cohort == null || cohort.isEmpty() ? null : cohort;
    resourceGroups = resourceGroups == null ? List.of() : List.copyOf(resourceGroups);
    queueingStrategy =
        queueingStrategy == null ? QueueingStrategy.BestEffortFIFO : queueingStrategy;
    flavorFungibility = flavorFungibility == null ? FlavorFungibility.DEFAULT : flavorFungibility;
    preemption = preemption == null ? PreemptionPolicy.NEVER : preemption;
    stopPolicy = stopPolicy == null ? StopPolicy.None : stopPolicy;
    fairSharingWeight = fairSharingWeight == null ? 1000L : fairSharingWeight;
    if (fairSharingWeight < 0) {
      throw new IllegalArgumentException(
          "ClusterQueue " + name + ": fairSharing.weight must be >= 0");
    }
    minimumRuntimeMillis = minimumRuntimeMillis == null ? 0L : minimumRuntimeMillis;
    if (minimumRuntimeMillis < 0) {
      throw new IllegalArgumentException("ClusterQueue " + name + ": minimum runtime must be >= 0");
    }
    borrowBackoffMillis = borrowBackoffMillis == null ? 0L : borrowBackoffMillis;
    if (borrowBackoffMillis < 0) {
      throw new IllegalArgumentException(
          "ClusterQueue " + name + ": borrowing backoff after reclaim must be >= 0");
    }
  }
}
