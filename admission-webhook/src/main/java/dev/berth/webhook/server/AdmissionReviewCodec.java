package dev.berth.webhook.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.webhook.validation.FieldError;
import dev.berth.webhook.validation.RequestUser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Reads AdmissionReview v1 requests and writes responses, on plain JSON trees: a body of any shape
 * is either understood or refused with a reason, never an exception that escapes.
 */
public final class AdmissionReviewCodec {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String API_VERSION = "admission.k8s.io/v1";

  private AdmissionReviewCodec() {}

  public static AdmissionCall parse(byte[] body) throws MalformedReviewException {
    JsonNode review;
    try {
      review = MAPPER.readTree(body);
    } catch (Exception e) {
      throw new MalformedReviewException("body is not JSON");
    }
    if (review == null || !review.isObject()) {
      throw new MalformedReviewException("body is not a JSON object");
    }
    if (!"AdmissionReview".equals(review.path("kind").asText())) {
      throw new MalformedReviewException("kind must be AdmissionReview");
    }
    JsonNode request = review.get("request");
    if (request == null || !request.isObject()) {
      throw new MalformedReviewException("request is missing");
    }
    String uid = text(request, "uid");
    if (uid == null || uid.isEmpty()) {
      throw new MalformedReviewException("request.uid is missing");
    }
    JsonNode kind = request.path("kind");
    return new AdmissionCall(
        uid,
        text(kind, "group"),
        text(kind, "kind"),
        text(request, "subResource"),
        text(request, "operation"),
        text(request, "namespace"),
        text(request, "name"),
        user(request.path("userInfo")),
        objectOrNull(request.get("object")),
        objectOrNull(request.get("oldObject")));
  }

  /** The response document for {@code answer}; {@code call} names the object in messages. */
  public static byte[] render(AdmissionCall call, AdmissionAnswer answer) {
    ObjectNode review = MAPPER.createObjectNode();
    review.put("apiVersion", API_VERSION);
    review.put("kind", "AdmissionReview");
    ObjectNode response = review.putObject("response");
    response.put("uid", call.uid());
    if (answer instanceof AdmissionAnswer.Allow allow) {
      response.put("allowed", true);
      if (allow.jsonPatch() != null) {
        response.put("patchType", "JSONPatch");
        response.put(
            "patch",
            Base64.getEncoder().encodeToString(allow.jsonPatch().getBytes(StandardCharsets.UTF_8)));
      }
    } else if (answer instanceof AdmissionAnswer.Invalid invalid) {
      response.put("allowed", false);
      writeInvalid(response.putObject("status"), call, invalid.errors());
    } else if (answer instanceof AdmissionAnswer.Refuse refuse) {
      response.put("allowed", false);
      ObjectNode status = response.putObject("status");
      status.put("status", "Failure");
      status.put("code", refuse.code());
      status.put("reason", refuse.reason());
      status.put("message", refuse.message());
    }
    return bytes(review);
  }

  private static void writeInvalid(ObjectNode status, AdmissionCall call, List<FieldError> errors) {
    status.put("status", "Failure");
    status.put("code", 422);
    status.put("reason", "Invalid");
    String qualifiedKind =
        (call.kind() == null ? "object" : call.kind())
            + (call.group() == null || call.group().isEmpty() ? "" : "." + call.group());
    String name = call.name() != null ? call.name() : nameOf(call.object());
    String list =
        errors.size() == 1
            ? errors.get(0).toString()
            : errors.stream().map(FieldError::toString).collect(Collectors.joining(", ", "[", "]"));
    status.put("message", qualifiedKind + " \"" + name + "\" is invalid: " + list);
    ObjectNode details = status.putObject("details");
    details.put("name", name);
    details.put("group", call.group());
    details.put("kind", call.kind());
    ArrayNode causes = details.putArray("causes");
    for (FieldError e : errors) {
      ObjectNode cause = causes.addObject();
      cause.put("reason", e.type().reason);
      cause.put("message", e.detail());
      cause.put("field", e.path());
    }
  }

  public static byte[] bytes(JsonNode node) {
    try {
      return MAPPER.writeValueAsBytes(node);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String nameOf(JsonNode object) {
    if (object == null) {
      return "";
    }
    JsonNode metadata = object.path("metadata");
    String name = metadata.path("name").asText("");
    return name.isEmpty() ? metadata.path("generateName").asText("") : name;
  }

  /** userInfo as the API server sends it; fields of the wrong shape are left out. */
  private static RequestUser user(JsonNode info) {
    List<String> groups = strings(info.get("groups"));
    Map<String, List<String>> extra = new LinkedHashMap<>();
    JsonNode extraNode = info.get("extra");
    if (extraNode != null && extraNode.isObject()) {
      extraNode.fields().forEachRemaining(e -> extra.put(e.getKey(), strings(e.getValue())));
    }
    return new RequestUser(text(info, "username"), text(info, "uid"), groups, extra);
  }

  private static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    if (array != null && array.isArray()) {
      array.forEach(
          v -> {
            if (v.isTextual()) {
              values.add(v.asText());
            }
          });
    }
    return values;
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node == null ? null : node.get(field);
    return v != null && v.isTextual() ? v.asText() : null;
  }

  private static JsonNode objectOrNull(JsonNode node) {
    return node != null && node.isObject() ? node : null;
  }
}
