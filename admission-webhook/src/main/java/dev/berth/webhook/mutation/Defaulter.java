package dev.berth.webhook.mutation;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Fills in what a user left out, in place, on the object's JSON. Working on JSON (not the typed
 * model) keeps every field the user wrote exactly as written, so the patch holds only defaults.
 */
@FunctionalInterface
public interface Defaulter {
  void apply(ObjectNode object, String namespace);
}
