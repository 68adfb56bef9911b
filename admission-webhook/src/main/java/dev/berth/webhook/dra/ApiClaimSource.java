package dev.berth.webhook.dra;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Optional;

/**
 * Templates and claims read from the API server, not from a cache: a Job and the template it names
 * are created together, and only objects that name a claim ask. Not found is empty; any other
 * failure throws (the webhook then refuses, the reconcile is retried).
 */
public final class ApiClaimSource implements ClaimSource {
  private final KubernetesClient client;

  public ApiClaimSource(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public Optional<JsonNode> template(String namespace, String name) {
    return read(ResourceClaimTemplate.class, namespace, name);
  }

  @Override
  public Optional<JsonNode> claim(String namespace, String name) {
    return read(ResourceClaim.class, namespace, name);
  }

  private Optional<JsonNode> read(
      Class<? extends HasMetadata> type, String namespace, String name) {
    try {
      HasMetadata found = client.resources(type).inNamespace(namespace).withName(name).get();
      return Optional.ofNullable(found).map(o -> Serialization.jsonMapper().valueToTree(o));
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return Optional.empty();
      }
      throw e;
    }
  }
}
