package dev.berth.webhook.server;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The parts of an AdmissionReview v1 request the handlers use. {@code object} is null on DELETE,
 * {@code oldObject} on CREATE.
 */
public record AdmissionCall(
    String uid,
    String group,
    String kind,
    String subResource,
    String operation,
    String namespace,
    String name,
    String username,
    JsonNode object,
    JsonNode oldObject) {

  public boolean isCreate() {
    return "CREATE".equals(operation);
  }

  public boolean isUpdate() {
    return "UPDATE".equals(operation);
  }
}
