package dev.berth.webhook.mutation;

/** Whether a LocalQueue exists, answered from a cache so the defaulters stay pure and fast. */
@FunctionalInterface
public interface LocalQueueLookup {
  boolean exists(String namespace, String name);

  /** For deployments (and tests) without a default queue. */
  LocalQueueLookup NONE = (namespace, name) -> false;
}
