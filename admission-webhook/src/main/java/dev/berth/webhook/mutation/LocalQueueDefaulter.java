package dev.berth.webhook.mutation;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** LocalQueue defaults: stopPolicy None. */
public final class LocalQueueDefaulter implements Defaulter {
  @Override
  public void apply(ObjectNode lq, String namespace) {
    Json.defaultText(Json.object(lq, "spec"), "stopPolicy", "None");
  }
}
