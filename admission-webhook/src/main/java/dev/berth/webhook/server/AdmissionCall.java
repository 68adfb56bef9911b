package dev.berth.webhook.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.webhook.validation.RequestUser;

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
    RequestUser user,
    JsonNode object,
    JsonNode oldObject) {

  /** A call from a user known only by name. */
  public AdmissionCall(
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
    this(
        uid,
        group,
        kind,
        subResource,
        operation,
        namespace,
        name,
        RequestUser.named(username),
        object,
        oldObject);
  }

  public AdmissionCall {
    user = user == null ? RequestUser.named(null) : user;
  }

  public String username() {
    return user.username();
  }

  public boolean isCreate() {
    return "CREATE".equals(operation);
  }

  public boolean isUpdate() {
    return "UPDATE".equals(operation);
  }
}
