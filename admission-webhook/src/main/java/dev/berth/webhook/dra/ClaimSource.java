package dev.berth.webhook.dra;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/** ResourceClaimTemplates and ResourceClaims as stored (resource.k8s.io/v1), by name. */
public interface ClaimSource {
  /** The template, or empty when there is none. */
  Optional<JsonNode> template(String namespace, String name);

  /** The claim, or empty when there is none. */
  Optional<JsonNode> claim(String namespace, String name);
}
