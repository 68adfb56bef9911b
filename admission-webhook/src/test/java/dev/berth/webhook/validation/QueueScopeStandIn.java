package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Stand-in for the informer-backed {@link QueueScope}: fixed LocalQueues ("namespace/name"),
 * managed namespaces with their reasons and stored JobSets ("namespace/name"), so the rules are
 * tested without a cluster. The informer itself runs against a real API server in the end-to-end
 * suite.
 */
record QueueScopeStandIn(
    Set<String> localQueues, Map<String, String> managedNamespaces, Map<String, JsonNode> jobSets)
    implements QueueScope {

  QueueScopeStandIn(Set<String> localQueues, Map<String, String> managedNamespaces) {
    this(localQueues, managedNamespaces, Map.of());
  }

  @Override
  public boolean exists(String namespace, String name) {
    return localQueues.contains(namespace + "/" + name);
  }

  @Override
  public List<String> localQueues(String namespace) {
    return localQueues.stream()
        .filter(lq -> lq.startsWith(namespace + "/"))
        .map(lq -> lq.substring(namespace.length() + 1))
        .sorted()
        .toList();
  }

  @Override
  public Optional<String> managedBecause(String namespace) {
    return Optional.ofNullable(managedNamespaces.get(namespace));
  }

  @Override
  public Optional<JsonNode> jobSet(String namespace, String name) {
    return Optional.ofNullable(jobSets.get(namespace + "/" + name));
  }
}
