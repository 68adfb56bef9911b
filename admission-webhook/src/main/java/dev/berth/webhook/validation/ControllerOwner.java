package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;

/** An object's controller owner reference of one kind, as the child rules look for it. */
final class ControllerOwner {
  private ControllerOwner() {}

  /**
   * The owner reference with {@code controller: true} naming {@code kind} of API group {@code
   * group}, or null. The group is matched on the apiVersion's prefix, so every version counts.
   */
  static JsonNode of(JsonNode object, String group, String kind) {
    for (JsonNode owner : object.path("metadata").path("ownerReferences")) {
      if (owner.path("controller").asBoolean(false)
          && kind.equals(owner.path("kind").asText())
          && owner.path("apiVersion").asText().startsWith(group + "/")) {
        return owner;
      }
    }
    return null;
  }
}
