package dev.berth.operator.visibility;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.berth.webhook.server.AsyncHttpsServer.Reply;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/** How the HTTPS endpoints answer: JSON bodies, Status errors, and headers no cache keeps. */
final class Responses {
  static final ObjectMapper JSON = new ObjectMapper();

  private Responses() {}

  /**
   * A Kubernetes Status body: kubectl (and any client-go client) reads its message when the API
   * server passes an aggregated API's error on.
   */
  static String error(String message) {
    try {
      return JSON.writeValueAsString(
              Map.of("kind", "Status", "apiVersion", "v1", "status", "Failure", "message", message))
          + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static Reply json(int code, Object body) {
    try {
      return send(
          code,
          "application/json",
          Map.of(),
          (JSON.writerWithDefaultPrettyPrinter().writeValueAsString(body) + "\n")
              .getBytes(StandardCharsets.UTF_8));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static Reply respond(int code, String body) {
    return send(code, "application/json", Map.of(), body.getBytes(StandardCharsets.UTF_8));
  }

  /** Answers are per caller: no shared cache may keep them, no page may sniff their type. */
  static Reply send(int code, String type, Map<String, String> headers, byte[] bytes) {
    Map<String, String> all = new HashMap<>(headers);
    all.put("Cache-Control", "no-store");
    all.put("X-Content-Type-Options", "nosniff");
    return new Reply(code, type, all, bytes);
  }
}
