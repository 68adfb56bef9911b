package dev.berth.webhook.mutation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.ResourceGroup;
import dev.berth.api.v1beta1.Workload;
import dev.berth.webhook.dra.ApiClaimSource;
import dev.berth.webhook.dra.DeviceClassMappings;
import dev.berth.webhook.dra.FlavorDeviceSelectors;
import dev.berth.webhook.integration.Framework;
import dev.berth.webhook.validation.QueueScope;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * LocalQueues, ClusterQueues and Namespaces from fabric8 informers: which LocalQueues exist, and
 * which namespaces Berth manages (a ClusterQueue's namespaceSelector selects it, or it has a
 * LocalQueue named {@code default}).
 *
 * <p>{@code inform()} returns once the first list is in, so the caches start complete. A namespace
 * the cache has not seen yet (created a moment ago) is read from the API server instead of being
 * taken as unmanaged: a Job created right after its namespace must not slip past the queue.
 */
public final class InformerLocalQueueLookup implements QueueScope, AutoCloseable {
  private final KubernetesClient client;
  private final SharedIndexInformer<LocalQueue> localQueues;
  private final SharedIndexInformer<ClusterQueue> clusterQueues;
  private final SharedIndexInformer<Namespace> namespaces;
  private final DeviceClassMappings deviceClasses;
  private final ApiClaimSource claims;

  public InformerLocalQueueLookup(KubernetesClient client) {
    this(client, DeviceClassMappings.NONE);
  }

  /** {@code deviceClasses}: the operator's DeviceClass mappings, which the pod rule charges. */
  public InformerLocalQueueLookup(KubernetesClient client, DeviceClassMappings deviceClasses) {
    this.client = client;
    this.deviceClasses = deviceClasses;
    this.claims = new ApiClaimSource(client);
    this.localQueues = client.resources(LocalQueue.class).inAnyNamespace().inform();
    this.clusterQueues = client.resources(ClusterQueue.class).inform();
    this.namespaces = client.namespaces().inform();
  }

  @Override
  public boolean exists(String namespace, String name) {
    return localQueues.getStore().getByKey(namespace + "/" + name) != null;
  }

  @Override
  public Optional<String> managedBecause(String namespace) {
    if (namespace == null) {
      return Optional.empty();
    }
    if (exists(namespace, DEFAULT_QUEUE)) {
      return Optional.of("it has a LocalQueue named " + DEFAULT_QUEUE);
    }
    Map<String, String> labels = labels(namespace);
    for (ClusterQueue cq : clusterQueues.getStore().list()) {
      if (cq.getSpec() != null
          && NamespaceSelectors.selects(cq.getSpec().namespaceSelector, labels)) {
        return Optional.of("ClusterQueue " + cq.getMetadata().getName() + " selects it");
      }
    }
    return Optional.empty();
  }

  @Override
  public Set<String> coveredResources(String namespace) {
    Map<String, String> labels = labels(namespace);
    Set<String> covered = new TreeSet<>();
    for (ClusterQueue cq : clusterQueues.getStore().list()) {
      if (cq.getSpec() != null
          && cq.getSpec().resourceGroups != null
          && NamespaceSelectors.selects(cq.getSpec().namespaceSelector, labels)) {
        for (ResourceGroup group : cq.getSpec().resourceGroups) {
          if (group.coveredResources != null) {
            covered.addAll(group.coveredResources);
          }
        }
      }
    }
    return covered;
  }

  @Override
  public List<String> localQueues(String namespace) {
    return localQueues.getStore().list().stream()
        .filter(lq -> namespace.equals(lq.getMetadata().getNamespace()))
        .map(lq -> lq.getMetadata().getName())
        .sorted()
        .toList();
  }

  /**
   * Read from the API server, not cached: asked only for a pod that claims a Job as its controller
   * and asks for covered resources in a managed namespace, and the Job controller creates a Job's
   * pods right after the Job, before a cache of ours would be sure to have it. Any failure other
   * than not found throws, and the request is refused.
   */
  @Override
  public Optional<JsonNode> job(String namespace, String name) {
    return Optional.ofNullable(
            client.batch().v1().jobs().inNamespace(namespace).withName(name).get())
        .map(job -> Serialization.jsonMapper().valueToTree(job));
  }

  /**
   * Read from the API server, not cached: asked only for a running managed Job's pod that holds
   * devices through claims, and a Workload's annotations are what it was charged at creation.
   */
  @Override
  public List<JsonNode> workloadsOwnedBy(String namespace, String ownerUid) {
    return client
        .resources(Workload.class)
        .inNamespace(namespace)
        .withLabel(Berth.OWNER_UID_LABEL, ownerUid)
        .list()
        .getItems()
        .stream()
        .map(wl -> Serialization.jsonMapper().<JsonNode>valueToTree(wl))
        .toList();
  }

  /** Read from the API server, not cached, as {@link #workloadsOwnedBy}: a pod group's. */
  @Override
  public Optional<JsonNode> workload(String namespace, String name) {
    return Optional.ofNullable(
            client.resources(Workload.class).inNamespace(namespace).withName(name).get())
        .map(wl -> Serialization.jsonMapper().<JsonNode>valueToTree(wl));
  }

  /**
   * Read from the API server, not cached: asked only when a claim is made for a pod in a namespace
   * Berth does not exclude, right after the pod was created.
   */
  @Override
  public Optional<JsonNode> pod(String namespace, String name) {
    return Optional.ofNullable(client.pods().inNamespace(namespace).withName(name).get())
        .map(pod -> Serialization.jsonMapper().valueToTree(pod));
  }

  /**
   * Read from the API server, not cached, as {@link #pod}: a flavor's selectors as they are now.
   */
  @Override
  public FlavorDeviceSelectors deviceSelectors(String flavor) {
    ResourceFlavor found = client.resources(ResourceFlavor.class).withName(flavor).get();
    return found == null || found.getSpec() == null
        ? FlavorDeviceSelectors.NONE
        : FlavorDeviceSelectors.of(found.getSpec().deviceSelectors);
  }

  @Override
  public DeviceClassMappings deviceClasses() {
    return deviceClasses;
  }

  /** Read from the API server, not cached, as {@link #job} ({@link ApiClaimSource}). */
  @Override
  public Optional<JsonNode> template(String namespace, String name) {
    return claims.template(namespace, name);
  }

  @Override
  public Optional<JsonNode> claim(String namespace, String name) {
    return claims.claim(namespace, name);
  }

  private Map<String, String> labels(String name) {
    Namespace ns = namespaces.getStore().getByKey(name);
    if (ns == null) {
      ns = client.namespaces().withName(name).get();
    }
    if (ns == null || ns.getMetadata().getLabels() == null) {
      // Not there at all: the request fails on its own. The API server sets
      // kubernetes.io/metadata.name on every namespace; selectors may use it.
      return Map.of("kubernetes.io/metadata.name", name);
    }
    return ns.getMetadata().getLabels();
  }

  /**
   * Read from the API server, not cached: asked only when a JobSet's child Job starts, and the
   * JobSet API may not be installed (then there is no such JobSet). Any other failure throws, and
   * the request is refused.
   */
  @Override
  public Optional<JsonNode> jobSet(String namespace, String name) {
    return stored("jobset.x-k8s.io/v1alpha2", "JobSet", namespace, name);
  }

  /** Read from the API server, not cached, as {@link #jobSet}: asked only when its pod is made. */
  @Override
  public Optional<JsonNode> owner(Framework framework, String namespace, String name) {
    return stored(framework.group() + "/" + framework.version(), framework.kind(), namespace, name);
  }

  /**
   * The object as stored; empty when there is none, its API is not installed (a 404), or its
   * integration is off, so that the chart grants no right on it (a 403): then it is none of
   * Berth's.
   */
  private Optional<JsonNode> stored(String apiVersion, String kind, String namespace, String name) {
    try {
      GenericKubernetesResource found =
          client
              .genericKubernetesResources(apiVersion, kind)
              .inNamespace(namespace)
              .withName(name)
              .get();
      return Optional.ofNullable(found).map(o -> Serialization.jsonMapper().valueToTree(o));
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404 || e.getCode() == 403) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /**
   * Read from the API server, not cached, as {@link #jobSet}: asked only when something KubeRay
   * makes for a RayJob runs, or a RayCluster's pod is created.
   */
  @Override
  public Optional<JsonNode> rayObject(String kind, String namespace, String name) {
    try {
      GenericKubernetesResource found =
          client
              .genericKubernetesResources("ray.io/v1", kind)
              .inNamespace(namespace)
              .withName(name)
              .get();
      return Optional.ofNullable(found).map(o -> Serialization.jsonMapper().valueToTree(o));
    } catch (KubernetesClientException e) {
      // 403: the Ray integrations are off, so the chart grants no right on them: none of Berth's.
      if (e.getCode() == 404 || e.getCode() == 403) {
        return Optional.empty();
      }
      throw e;
    }
  }

  public boolean hasSynced() {
    return localQueues.hasSynced() && clusterQueues.hasSynced() && namespaces.hasSynced();
  }

  @Override
  public void close() {
    localQueues.close();
    clusterQueues.close();
    namespaces.close();
  }
}
