package dev.berth.webhook.validation;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Stand-in for the informer-backed {@link QueueScope}: fixed LocalQueues ("namespace/name") and
 * managed namespaces with their reasons, so the rules are tested without a cluster. The informer
 * itself is exercised against a real API server in the end-to-end suite.
 */
record QueueScopeStandIn(Set<String> localQueues, Map<String, String> managedNamespaces)
    implements QueueScope {

  @Override
  public boolean exists(String namespace, String name) {
    return localQueues.contains(namespace + "/" + name);
  }

  @Override
  public Optional<String> managedBecause(String namespace) {
    return Optional.ofNullable(managedNamespaces.get(namespace));
  }
}
