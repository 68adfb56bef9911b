package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.webhook.dra.DeviceClassMappings;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The queue rule's narrow scope ({@code manageJobsWithoutQueueName: false}, Kueue's default): no
 * namespace is managed as a whole, so only objects labelled with a LocalQueue are Berth's and the
 * rest run as they would without it. Everything else about the cluster is read as before: a
 * labelled Job still names an existing LocalQueue, and a namespace's {@code default} LocalQueue
 * still labels the Jobs that name none.
 */
public final class LabelledOnly implements QueueScope {
  private final QueueScope cluster;

  public LabelledOnly(QueueScope cluster) {
    this.cluster = cluster;
  }

  @Override
  public Optional<String> managedBecause(String namespace) {
    return Optional.empty();
  }

  @Override
  public boolean exists(String namespace, String name) {
    return cluster.exists(namespace, name);
  }

  @Override
  public Optional<JsonNode> jobSet(String namespace, String name) {
    return cluster.jobSet(namespace, name);
  }

  @Override
  public Set<String> coveredResources(String namespace) {
    return cluster.coveredResources(namespace);
  }

  @Override
  public List<String> localQueues(String namespace) {
    return cluster.localQueues(namespace);
  }

  @Override
  public Optional<JsonNode> job(String namespace, String name) {
    return cluster.job(namespace, name);
  }

  @Override
  public List<JsonNode> workloadsOwnedBy(String namespace, String ownerUid) {
    return cluster.workloadsOwnedBy(namespace, ownerUid);
  }

  @Override
  public Optional<JsonNode> workload(String namespace, String name) {
    return cluster.workload(namespace, name);
  }

  @Override
  public Optional<JsonNode> owner(
      dev.berth.webhook.integration.Framework framework, String namespace, String name) {
    return cluster.owner(framework, namespace, name);
  }

  @Override
  public DeviceClassMappings deviceClasses() {
    return cluster.deviceClasses();
  }

  @Override
  public Optional<JsonNode> template(String namespace, String name) {
    return cluster.template(namespace, name);
  }

  @Override
  public Optional<JsonNode> claim(String namespace, String name) {
    return cluster.claim(namespace, name);
  }
}
