package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.webhook.dra.ClaimSource;
import dev.berth.webhook.dra.DeviceClassMappings;
import dev.berth.webhook.dra.FlavorDeviceSelectors;
import dev.berth.webhook.integration.Framework;
import dev.berth.webhook.mutation.LocalQueueLookup;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What the queue rules need to know about the cluster: which LocalQueues exist, and in which
 * namespaces Berth manages every Job and JobSet. Answered from caches, so the rules stay pure;
 * tests pass a map-backed one and need no cluster.
 */
public interface QueueScope extends LocalQueueLookup, ClaimSource {
  /** The LocalQueue that catches a namespace's Jobs that name none. */
  String DEFAULT_QUEUE = "default";

  /**
   * Why Berth manages every Job and JobSet in the namespace ("ClusterQueue team-a selects it", "it
   * has a LocalQueue named default"), or empty when only labelled ones are Berth's.
   */
  Optional<String> managedBecause(String namespace);

  /** The JobSet as stored, or empty when there is none (or no JobSet API at all). */
  Optional<JsonNode> jobSet(String namespace, String name);

  /**
   * The resources the ClusterQueues whose namespaceSelector selects the namespace cover (their
   * resource groups' {@code coveredResources}): what a pod there may not hold outside a queue.
   */
  default Set<String> coveredResources(String namespace) {
    return Set.of();
  }

  /** The names of the namespace's LocalQueues, sorted, for messages. */
  default List<String> localQueues(String namespace) {
    return List.of();
  }

  /** The batch/v1 Job as stored, or empty when there is none. */
  default Optional<JsonNode> job(String namespace, String name) {
    return Optional.empty();
  }

  /**
   * The Workloads of the namespace whose owner has UID {@code ownerUid} (label {@code
   * berth.dev/owner-uid}), as stored; none when there is none.
   */
  default List<JsonNode> workloadsOwnedBy(String namespace, String ownerUid) {
    return List.of();
  }

  /** The Workload of that name (a pod group's), as stored; empty when there is none. */
  default Optional<JsonNode> workload(String namespace, String name) {
    return Optional.empty();
  }

  /**
   * The object of a registry kind that creates its pods itself (a PyTorchJob), as stored, or empty
   * when there is none (or its API is not installed).
   */
  default Optional<JsonNode> owner(Framework framework, String namespace, String name) {
    return Optional.empty();
  }

  /**
   * A KubeRay object ({@code RayJob}, {@code RayCluster}) as stored, or empty when there is none
   * (or no KubeRay API at all).
   */
  default Optional<JsonNode> rayObject(String kind, String namespace, String name) {
    return Optional.empty();
  }

  /** The pod as stored, or empty when there is none. */
  default Optional<JsonNode> pod(String namespace, String name) {
    return Optional.empty();
  }

  /** The ResourceFlavor's device selectors (none when it has none, or is not there). */
  default FlavorDeviceSelectors deviceSelectors(String flavor) {
    return FlavorDeviceSelectors.NONE;
  }

  /** Which quota resource each DeviceClass's devices are charged to. */
  default DeviceClassMappings deviceClasses() {
    return DeviceClassMappings.NONE;
  }

  @Override
  default Optional<JsonNode> template(String namespace, String name) {
    return Optional.empty();
  }

  @Override
  default Optional<JsonNode> claim(String namespace, String name) {
    return Optional.empty();
  }

  /** No ClusterQueue, no LocalQueue: only labelled Jobs are managed. */
  QueueScope NONE =
      new QueueScope() {
        @Override
        public boolean exists(String namespace, String name) {
          return false;
        }

        @Override
        public Optional<String> managedBecause(String namespace) {
          return Optional.empty();
        }

        @Override
        public Optional<JsonNode> jobSet(String namespace, String name) {
          return Optional.empty();
        }
      };
}
