package dev.berth.operator.visibility;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** How the HTTPS endpoints answer: JSON bodies, Status errors, and headers no cache keeps. */
final class Responses {
  static final ObjectMapper JSON = new ObjectMapper();

  private Responses() {}

  static String error(String message) {
    try {
      return JSON.writeValueAsString(Map.of("kind", "Status", "message", message)) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static void json(HttpExchange exchange, int code, Object body) throws IOException {
    send(
        exchange,
        code,
        "application/json",
        (JSON.writerWithDefaultPrettyPrinter().writeValueAsString(body) + "\n")
            .getBytes(StandardCharsets.UTF_8));
  }

  static void respond(HttpExchange exchange, int code, String body) throws IOException {
    send(exchange, code, "application/json", body.getBytes(StandardCharsets.UTF_8));
  }

  /** Answers are per caller: no shared cache may keep them, no page may sniff their type. */
  static void send(HttpExchange exchange, int code, String type, byte[] bytes) throws IOException {
    var headers = exchange.getResponseHeaders();
    headers.set("Content-Type", type);
    headers.set("Cache-Control", "no-store");
    headers.set("X-Content-Type-Options", "nosniff");
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
