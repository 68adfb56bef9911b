package dev.berth.webhook.mutation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Set-if-absent on JSON objects: the only kind of write a defaulter makes. */
final class Json {
  private Json() {}

  /** The object at {@code field}, created when absent; null when something else is there. */
  static ObjectNode object(ObjectNode parent, String field) {
    JsonNode node = parent.get(field);
    if (node == null || node.isNull()) {
      return parent.putObject(field);
    }
    return node.isObject() ? (ObjectNode) node : null;
  }

  static void defaultText(ObjectNode parent, String field, String value) {
    if (parent != null && (!parent.has(field) || parent.get(field).isNull())) {
      parent.put(field, value);
    }
  }
}
