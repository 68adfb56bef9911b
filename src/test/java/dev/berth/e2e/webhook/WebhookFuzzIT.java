package dev.berth.e2e.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.webhook.server.WebhookPaths;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * 10,000 random and mutated AdmissionReview bodies straight at the HTTPS endpoint: every one gets
 * an answer below 500, in time, and the server still answers properly afterwards. Seeded, so a
 * failure replays.
 */
class WebhookFuzzIT {
  static final int BODIES = 10_000;
  static final int IN_FLIGHT = 16;
  static final long SEED = 20261129L;

  /** The body generator's stack: room for the deepest tree it builds, interpreted or not. */
  private static final long GENERATOR_STACK_BYTES = 256L * 1024 * 1024;

  /** Writes nesting deeper than the server's parser accepts, to prove it refuses it cleanly. */
  private static final ObjectMapper MAPPER =
      new ObjectMapper(
          com.fasterxml.jackson.core.JsonFactory.builder()
              .streamWriteConstraints(
                  com.fasterxml.jackson.core.StreamWriteConstraints.builder()
                      .maxNestingDepth(100_000)
                      .build())
              .build());

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  static HttpClient client(WebhookTestCluster cluster) {
    return HttpClient.newBuilder()
        .sslContext(cluster.ca().trustingClientContext())
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
  }

  static List<String> paths() throws IllegalAccessException {
    List<String> paths = new ArrayList<>();
    for (var field : WebhookPaths.class.getFields()) {
      if (Modifier.isStatic(field.getModifiers()) && !field.getName().equals("HEALTH")) {
        paths.add((String) field.get(null));
      }
    }
    return paths;
  }

  @Test
  void randomAndMutatedReviewsNeverGetA5xxOrAHang() throws Exception {
    WebhookTestCluster cluster = WebhookTestCluster.get();
    HttpClient http = client(cluster);
    String base = "https://127.0.0.1:" + cluster.webhookPort();
    List<String> paths = paths();
    paths.add("/not-a-webhook");
    List<ObjectNode> seeds = seeds();
    Random random = new Random(SEED);

    Semaphore slots = new Semaphore(IN_FLIGHT);
    Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
    List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    List<CompletableFuture<?>> inFlight = new ArrayList<>();
    // The bodies are built on a thread with a deep stack: copying and writing a tree recurses once
    // per level, the generated trees nest up to ~3,000 levels, and whether that fits the default
    // stack depends on what the JIT has compiled yet (interpreted frames are larger): a loaded CI
    // machine overflowed it in ArrayNode.deepCopy. One thread at a time draws from the seeded
    // Random, so the bodies are the same as ever.
    ExecutorService generator =
        Executors.newSingleThreadExecutor(
            task -> new Thread(null, task, "webhook-fuzz-bodies", GENERATOR_STACK_BYTES));
    long started = System.nanoTime();
    for (int i = 0; i < BODIES; i++) {
      byte[] body = generator.submit(() -> body(random, seeds)).get();
      String path = paths.get(random.nextInt(paths.size()));
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(base + path))
              .timeout(Duration.ofSeconds(10))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofByteArray(body))
              .build();
      slots.acquire();
      int n = i;
      inFlight.add(
          http.sendAsync(request, HttpResponse.BodyHandlers.ofString())
              .handle(
                  (response, error) -> {
                    slots.release();
                    if (error != null) {
                      failures.add(
                          "#" + n + " " + path + ": " + error + " after body " + preview(body));
                      return null;
                    }
                    statuses
                        .computeIfAbsent(response.statusCode(), k -> new AtomicInteger())
                        .incrementAndGet();
                    if (response.statusCode() >= 500) {
                      failures.add("#" + n + " " + path + ": HTTP " + response.statusCode());
                    } else if (response.statusCode() == 200 && !answersReview(response.body())) {
                      failures.add(
                          "#" + n + " " + path + ": 200 without an AdmissionReview response");
                    }
                    return null;
                  }));
    }
    generator.shutdown();
    CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    System.out.printf(
        "[berth-webhook-fuzz] %d bodies in %d ms, status counts %s%n", BODIES, elapsedMs, statuses);

    failures.forEach(f -> System.out.println("[berth-webhook-fuzz] failure " + f));
    assertThat(failures).isEmpty();
    assertThat(statuses.values().stream().mapToInt(AtomicInteger::get).sum()).isEqualTo(BODIES);
    assertThat(elapsedMs).isLessThan(60_000);
    // Still alive and still right.
    HttpResponse<String> health =
        http.send(
            HttpRequest.newBuilder(URI.create(base + WebhookPaths.HEALTH)).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(health.statusCode()).isEqualTo(200);
  }

  private static boolean answersReview(String body) {
    try {
      JsonNode review = MAPPER.readTree(body);
      return review.path("response").path("allowed").isBoolean()
          && review.path("response").path("uid").isTextual();
    } catch (Exception e) {
      return false;
    }
  }

  /** Well-formed reviews around every corpus and sample object: the starting points to mutate. */
  private static List<ObjectNode> seeds() {
    List<String> yamls = new ArrayList<>();
    WebhookCorpus.all().forEach(c -> yamls.add(c.yaml()));
    yamls.addAll(ValidSamples.all("fuzz").values());
    List<ObjectNode> reviews = new ArrayList<>();
    for (String yaml : yamls) {
      JsonNode object =
          Serialization.jsonMapper().valueToTree(Serialization.unmarshal(yaml, Map.class));
      ObjectNode review = NODES.objectNode();
      review.put("apiVersion", "admission.k8s.io/v1");
      review.put("kind", "AdmissionReview");
      ObjectNode request = review.putObject("request");
      request.put("uid", "seed");
      String apiVersion = object.path("apiVersion").asText();
      request
          .putObject("kind")
          .put("group", apiVersion.contains("/") ? apiVersion.split("/")[0] : "")
          .put("version", apiVersion.contains("/") ? apiVersion.split("/")[1] : apiVersion)
          .put("kind", object.path("kind").asText());
      request.put("operation", "CREATE");
      request.put("namespace", "fuzz");
      request.put("name", object.path("metadata").path("name").asText());
      request.putObject("userInfo").put("username", "alice");
      request.set("object", object);
      request.set("oldObject", object.deepCopy());
      reviews.add(review);
    }
    return reviews;
  }

  private static byte[] body(Random random, List<ObjectNode> seeds) throws Exception {
    int kind = random.nextInt(10);
    if (kind == 0) {
      byte[] bytes = new byte[random.nextInt(2048)];
      random.nextBytes(bytes);
      return bytes;
    }
    ObjectNode review = seeds.get(random.nextInt(seeds.size())).deepCopy();
    ((ObjectNode) review.get("request")).put("uid", "fuzz-" + random.nextLong());
    ((ObjectNode) review.get("request"))
        .put(
            "operation",
            List.of("CREATE", "UPDATE", "DELETE", "CONNECT", "", "create").get(random.nextInt(6)));
    int mutations = 1 + random.nextInt(6);
    for (int m = 0; m < mutations; m++) {
      mutate(review, random);
    }
    byte[] json = MAPPER.writeValueAsBytes(review);
    if (kind == 1) {
      return Arrays.copyOf(json, random.nextInt(json.length + 1)); // truncated
    }
    if (kind == 2) {
      for (int f = 0; f < 1 + random.nextInt(8); f++) {
        json[random.nextInt(json.length)] = (byte) random.nextInt(256); // flipped bytes
      }
    }
    return json;
  }

  /** Replaces, removes or reshapes one random node of the tree. */
  private static void mutate(JsonNode root, Random random) {
    List<JsonNode> containers = new ArrayList<>();
    collect(root, containers);
    JsonNode target = containers.get(random.nextInt(containers.size()));
    if (target instanceof ObjectNode object && object.size() > 0) {
      List<String> names = new ArrayList<>();
      object.fieldNames().forEachRemaining(names::add);
      String field = names.get(random.nextInt(names.size()));
      if (random.nextInt(4) == 0) {
        object.remove(field);
      } else {
        object.set(field, randomValue(random, 0));
      }
    } else if (target instanceof ArrayNode array && array.size() > 0) {
      int index = random.nextInt(array.size());
      switch (random.nextInt(3)) {
        case 0 -> array.remove(index);
        case 1 -> array.set(index, randomValue(random, 0));
        default -> {
          for (int i = 0; i < 1 + random.nextInt(20); i++) {
            array.add(array.get(index).deepCopy());
          }
        }
      }
    }
  }

  /** Containers down to a modest depth, iteratively: generated values nest thousands deep. */
  private static void collect(JsonNode root, List<JsonNode> out) {
    java.util.ArrayDeque<Map.Entry<JsonNode, Integer>> todo = new java.util.ArrayDeque<>();
    todo.push(Map.entry(root, 0));
    while (!todo.isEmpty()) {
      Map.Entry<JsonNode, Integer> next = todo.pop();
      if (next.getKey().isContainerNode() && next.getValue() < 40) {
        out.add(next.getKey());
        next.getKey().forEach(child -> todo.push(Map.entry(child, next.getValue() + 1)));
      }
    }
  }

  private static JsonNode randomValue(Random random, int depth) {
    return switch (random.nextInt(depth > 3 ? 9 : 12)) {
      case 0 -> NODES.nullNode();
      case 1 -> NODES.booleanNode(random.nextBoolean());
      case 2 -> NODES.numberNode(random.nextInt());
      case 3 -> NODES.numberNode(-random.nextInt(1000));
      case 4 -> NODES.numberNode(random.nextDouble() * 1e300);
      case 5 -> NODES.textNode("");
      case 6 -> NODES.textNode("x".repeat(random.nextInt(5000)));
      case 7 ->
          NODES.textNode(
              List.of(
                      "-1",
                      "1e999",
                      "NaN",
                      "Team_A",
                      "a..b",
                      "\u0000\uFFFF",
                      "pods",
                      "kubernetes.io/hostname",
                      "TryNextFlavor",
                      "Never",
                      "9223372036854775808")
                  .get(random.nextInt(11)));
      case 8 -> NODES.numberNode(new java.math.BigInteger("9".repeat(1 + random.nextInt(60))));
      case 9 -> deeplyNested(random.nextInt(3000));
      case 10 -> {
        ObjectNode o = NODES.objectNode();
        for (int i = 0; i < random.nextInt(4); i++) {
          o.set("f" + random.nextInt(5), randomValue(random, depth + 1));
        }
        yield o;
      }
      default -> {
        ArrayNode a = NODES.arrayNode();
        for (int i = 0; i < random.nextInt(4); i++) {
          a.add(randomValue(random, depth + 1));
        }
        yield a;
      }
    };
  }

  /** Nesting deeper than any parser default allows, to find recursion limits. */
  private static JsonNode deeplyNested(int depth) {
    JsonNode node = NODES.textNode("bottom");
    for (int i = 0; i < depth; i++) {
      node = i % 2 == 0 ? NODES.arrayNode().add(node) : NODES.objectNode().set("n", node);
    }
    return node;
  }

  /** The start of a body, enough to recognise which generator made it. */
  static String preview(byte[] b) {
    String text = new String(b, 0, Math.min(b.length, 300), StandardCharsets.UTF_8);
    return b.length + " bytes: " + text.replaceAll("\\s+", " ");
  }
}
