package dev.berth.kubectl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The API server, reached through kubectl itself: the user's kubeconfig, context and every way it
 * authenticates (certificates, tokens, exec plugins) work as they do for kubectl.
 */
final class Kubectl {
  static final ObjectMapper JSON = new ObjectMapper();

  /** kubectl failed; its own message is kept. */
  static final class Failure extends RuntimeException {
    Failure(String message) {
      super(message);
    }
  }

  private final String binary;
  private final List<String> global = new ArrayList<>();

  Kubectl(Options o) {
    String env = System.getenv("KUBECTL");
    this.binary = env == null || env.isBlank() ? "kubectl" : env;
    if (o.context() != null) {
      global.add("--context=" + o.context());
    }
    if (o.kubeconfig() != null) {
      global.add("--kubeconfig=" + o.kubeconfig());
    }
  }

  /** {@code kubectl get RESOURCE [args] -o json}, started now, read later (calls overlap). */
  CompletableFuture<JsonNode> get(String... args) {
    List<String> cmd = new ArrayList<>(List.of("get"));
    cmd.addAll(List.of(args));
    cmd.add("-o");
    cmd.add("json");
    return run(cmd, null);
  }

  /** {@code kubectl get --raw PATH}: a GET through the API server, its JSON answer. */
  CompletableFuture<JsonNode> raw(String path) {
    return run(List.of("get", "--raw", path), null);
  }

  /**
   * {@code kubectl create -f - -o json} of one object; with {@code dryRunServer} the API server and
   * the webhooks check it and nothing is stored.
   */
  JsonNode create(JsonNode object, boolean dryRunServer) {
    List<String> cmd = new ArrayList<>(List.of("create", "-f", "-", "-o", "json"));
    if (dryRunServer) {
      cmd.add("--dry-run=server");
    }
    return await(run(cmd, object.toString()));
  }

  /** {@code kubectl patch RESOURCE NAME [-n NS] --type=merge -p PATCH -o json}. */
  JsonNode patch(String resource, String name, String namespace, JsonNode patch) {
    List<String> cmd = new ArrayList<>(List.of("patch", resource, name));
    if (namespace != null) {
      cmd.add("--namespace=" + namespace);
    }
    cmd.addAll(List.of("--type=merge", "-p", patch.toString(), "-o", "json"));
    return await(run(cmd, null));
  }

  /** The kubeconfig's current context, user and cluster with secrets (for the token). */
  CompletableFuture<JsonNode> currentConfig() {
    return run(List.of("config", "view", "--raw", "--minify", "-o", "json"), null);
  }

  /** Runs kubectl with {@code stdin} as its input, or the plugin's own input when null. */
  private CompletableFuture<JsonNode> run(List<String> args, String stdin) {
    List<String> cmd = new ArrayList<>();
    cmd.add(binary);
    cmd.addAll(global);
    cmd.addAll(args);
    Process p;
    try {
      ProcessBuilder pb = new ProcessBuilder(cmd);
      if (stdin == null) {
        pb.redirectInput(ProcessBuilder.Redirect.INHERIT);
      }
      p = pb.start();
      if (stdin != null) {
        try (var in = p.getOutputStream()) {
          in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
      }
    } catch (IOException e) {
      throw new Failure(
          "cannot run " + binary + ": " + e.getMessage() + " (set KUBECTL to its path)");
    }
    CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
    return CompletableFuture.supplyAsync(
        () -> {
          String out = read(p.getInputStream());
          try {
            int code = p.waitFor();
            if (code != 0) {
              // A get names what it read; kubectl's own message names the object otherwise.
              String message = oneLine(err.join());
              throw new Failure(
                  args.get(0).equals("get")
                      ? String.join(" ", args.subList(0, Math.min(2, args.size()))) + ": " + message
                      : message);
            }
            return JSON.readTree(out);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure("interrupted");
          } catch (IOException e) {
            throw new Failure("kubectl printed no JSON: " + e.getMessage());
          }
        });
  }

  /**
   * kubectl's error as one line, as a plugin reports errors: its own "error: " prefix dropped (the
   * plugin prints one), several lines joined.
   */
  static String oneLine(String stderr) {
    String text = String.join("; ", stderr.strip().lines().map(String::strip).toList());
    return text.startsWith("error: ") ? text.substring("error: ".length()) : text;
  }

  private static String read(InputStream in) {
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** Waits for a call; kubectl's failure surfaces as {@link Failure}. */
  static JsonNode await(CompletableFuture<JsonNode> call) {
    try {
      return call.join();
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }
}
