package dev.berth.engine.model;

import java.util.List;
import java.util.Objects;

/**
 * The engine's view of a Workload. {@code queueTimestamp} is creation time, or the eviction time
 * after a requeue (epoch millis, supplied by the caller: the engine reads no clock).
 */
public record Workload(
    String uid,
    String namespace,
    String name,
    String queueName,
    int priority,
    long queueTimestamp,
    List<PodSet> podSets) {
  public Workload {
    Objects.requireNonNull(uid, "uid");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(queueName, "queueName");
    name = name == null ? uid : name;
    podSets = List.copyOf(podSets);
    if (podSets.isEmpty()) {
      throw new IllegalArgumentException("workload " + name + " has no podSets");
    }
  }

  public String localQueueKey() {
    return namespace + "/" + queueName;
  }
}
