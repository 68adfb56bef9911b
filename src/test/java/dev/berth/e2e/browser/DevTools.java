package dev.berth.e2e.browser;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small client of Chromium's DevTools protocol over the JDK's WebSocket: commands by id, answers
 * matched back, and the page's uncaught exceptions and console errors collected so a test can
 * require that there were none.
 */
public final class DevTools implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);

  private final WebSocket socket;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<JsonNode>> waiting = new ConcurrentHashMap<>();
  private final List<String> pageErrors = new CopyOnWriteArrayList<>();

  private final int port;
  private final String targetId;

  private DevTools(WebSocket socket, int port, String targetId) {
    this.socket = socket;
    this.port = port;
    this.targetId = targetId;
  }

  static DevTools newPage(int port) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newHttpClient();
    // Chromium opens a tab on PUT /json/new (GET is refused since version 111).
    JsonNode target =
        JSON.readTree(
            http.send(
                    HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + port + "/json/new?about:blank"))
                        .PUT(HttpRequest.BodyPublishers.noBody())
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .body());
    String url = target.path("webSocketDebuggerUrl").asText();
    if (url.isEmpty()) {
      throw new IllegalStateException("Chromium opened no tab: " + target);
    }
    Listener listener = new Listener();
    WebSocket socket = http.newWebSocketBuilder().buildAsync(URI.create(url), listener).join();
    DevTools tools = new DevTools(socket, port, target.path("id").asText());
    listener.tools = tools;
    tools.call("Runtime.enable", Map.of());
    tools.call("Page.enable", Map.of());
    return tools;
  }

  /** Sends a command and waits for its result (an error answer throws). */
  public JsonNode call(String method, Map<String, ?> params) {
    int id = ids.incrementAndGet();
    ObjectNode message = JSON.createObjectNode();
    message.put("id", id);
    message.put("method", method);
    message.set("params", JSON.valueToTree(params));
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    waiting.put(id, answer);
    socket.sendText(message.toString(), true).join();
    try {
      JsonNode reply = answer.get(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      if (reply.has("error")) {
        throw new IllegalStateException(method + " failed: " + reply.get("error"));
      }
      return reply.path("result");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(method + " got no answer", e);
    } finally {
      waiting.remove(id);
    }
  }

  public void navigate(String url) {
    call("Page.navigate", Map.of("url", url));
  }

  /** Evaluates a JavaScript expression in the page; its value as JSON (promises awaited). */
  public JsonNode evaluate(String expression) {
    JsonNode result =
        call(
            "Runtime.evaluate",
            Map.of("expression", expression, "returnByValue", true, "awaitPromise", true));
    if (result.has("exceptionDetails")) {
      throw new IllegalStateException(
          "page threw on " + expression + ": " + result.get("exceptionDetails"));
    }
    return result.path("result").path("value");
  }

  /** Presses a key as a keyboard would (keyDown, then keyUp): "Tab" or "Enter". */
  public void press(String key) {
    int code =
        switch (key) {
          case "Tab" -> 9;
          case "Enter" -> 13;
          default -> throw new IllegalArgumentException("no key code for " + key);
        };
    Map<String, Object> down =
        new java.util.HashMap<>(
            Map.of(
                "type",
                "keyDown",
                "key",
                key,
                "code",
                key,
                "windowsVirtualKeyCode",
                code,
                "nativeVirtualKeyCode",
                code));
    if (key.equals("Enter")) {
      down.put("text", "\r");
    }
    call("Input.dispatchKeyEvent", down);
    call(
        "Input.dispatchKeyEvent",
        Map.of(
            "type",
            "keyUp",
            "key",
            key,
            "code",
            key,
            "windowsVirtualKeyCode",
            code,
            "nativeVirtualKeyCode",
            code));
  }

  /** Types text into the focused element. */
  public void type(String text) {
    call("Input.insertText", Map.of("text", text));
  }

  /** A PNG of the whole page, written to {@code file}. */
  public Path screenshot(Path file) throws IOException {
    JsonNode shot =
        call("Page.captureScreenshot", Map.of("format", "png", "captureBeyondViewport", true));
    Files.createDirectories(file.getParent());
    Files.write(file, Base64.getDecoder().decode(shot.path("data").asText()));
    return file;
  }

  /** Uncaught exceptions and console errors of the page so far. */
  public List<String> pageErrors() {
    return List.copyOf(pageErrors);
  }

  private void received(JsonNode message) {
    if (message.has("id")) {
      CompletableFuture<JsonNode> answer = waiting.get(message.get("id").asInt());
      if (answer != null) {
        answer.complete(message);
      }
      return;
    }
    String method = message.path("method").asText();
    if (method.equals("Runtime.exceptionThrown")) {
      pageErrors.add(message.path("params").path("exceptionDetails").toString());
    } else if (method.equals("Runtime.consoleAPICalled")
        && "error".equals(message.path("params").path("type").asText())) {
      pageErrors.add(message.path("params").path("args").toString());
    }
  }

  /** Closes the tab. */
  @Override
  public void close() {
    socket.sendClose(WebSocket.NORMAL_CLOSURE, "done");
    try {
      HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + port + "/json/close/" + targetId))
                  .build(),
              HttpResponse.BodyHandlers.discarding());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Collects text frames into messages (DevTools answers can span frames). */
  private static final class Listener implements WebSocket.Listener {
    private final StringBuilder partial = new StringBuilder();
    private volatile DevTools tools;

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
      partial.append(data);
      if (last) {
        String text = partial.toString();
        partial.setLength(0);
        try {
          if (tools != null) {
            tools.received(JSON.readTree(text));
          }
        } catch (IOException e) {
          throw new IllegalStateException("unreadable DevTools message: " + text, e);
        }
      }
      webSocket.request(1);
      return null;
    }
  }
}
