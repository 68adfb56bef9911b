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
    return run(cmd);
  }

  /** The kubeconfig's current context, user and cluster with secrets (for the token). */
  CompletableFuture<JsonNode> currentConfig() {
    return run(List.of("config", "view", "--raw", "--minify", "-o", "json"));
  }

  private CompletableFuture<JsonNode> run(List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(binary);
    cmd.addAll(global);
    cmd.addAll(args);
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.INHERIT).start();
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
              throw new Failure(
                  String.join(" ", args.subList(0, Math.min(2, args.size())))
                      + ": "
                      + err.join().strip());
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
