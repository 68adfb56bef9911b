package dev.berth.engine.model;

import java.util.Objects;

/** A namespaced LocalQueue pointing at a ClusterQueue. */
public record LocalQueue(
    String namespace, String name, String clusterQueue, StopPolicy stopPolicy) {
  public LocalQueue {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(clusterQueue, "clusterQueue");
    stopPolicy = stopPolicy == null ? StopPolicy.None : stopPolicy;
  }

  public String key() {
    return namespace + "/" + name;
  }
}
