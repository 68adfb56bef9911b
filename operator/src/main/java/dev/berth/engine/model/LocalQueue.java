package dev.berth.engine.model;

import java.util.Objects;

/**
 * A namespaced LocalQueue pointing at a ClusterQueue. {@code fairSharingWeight}, in thousandths
 * (1000 = weight 1, the default), divides its recent usage where its ClusterQueue orders
 * LocalQueues by usage ({@link AdmissionFairSharing}); 0 puts it behind every LocalQueue with a
 * weight.
 */
public record LocalQueue(
    String namespace,
    String name,
    String clusterQueue,
    StopPolicy stopPolicy,
    Long fairSharingWeight) {
  /** A LocalQueue with the default weight (1). */
  public LocalQueue(String namespace, String name, String clusterQueue, StopPolicy stopPolicy) {
    this(namespace, name, clusterQueue, stopPolicy, null);
  }

  public LocalQueue {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(clusterQueue, "clusterQueue");
    stopPolicy = stopPolicy == null ? StopPolicy.None : stopPolicy;
    fairSharingWeight = fairSharingWeight == null ? 1000L : fairSharingWeight;
    if (fairSharingWeight < 0) {
      throw new IllegalArgumentException(
          "LocalQueue " + namespace + "/" + name + ": fairSharing.weight must be >= 0");
    }
  }

  public String key() {
    return namespace + "/" + name;
  }
}
