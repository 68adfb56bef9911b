package dev.berth.kubectl;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The user's bearer token for the visibility API: --token or BERTH_TOKEN, else the kubeconfig
 * user's token (or tokenFile), else what its exec credential plugin prints. A user who signs in
 * with a client certificate has none; the error says how to get one.
 */
final class BearerToken {
  private BearerToken() {}

  static String resolve(Options o, Kubectl kubectl) {
    if (o.token() != null && !o.token().isBlank()) {
      return o.token().strip();
    }
    JsonNode config = Kubectl.await(kubectl.currentConfig());
    JsonNode user = config.path("users").path(0);
    JsonNode u = user.path("user");
    if (u.hasNonNull("token")) {
      return u.get("token").asText();
    }
    if (u.hasNonNull("tokenFile")) {
      try {
        return java.nio.file.Files.readString(java.nio.file.Path.of(u.get("tokenFile").asText()))
            .strip();
      } catch (IOException e) {
        throw new Kubectl.Failure(
            "kubeconfig user "
                + user.path("name").asText()
                + ": tokenFile unreadable: "
                + e.getMessage());
      }
    }
    if (u.has("exec")) {
      return exec(user.path("name").asText(), u.get("exec"));
    }
    throw new Kubectl.Failure(
        "kubeconfig user "
            + user.path("name").asText()
            + " has no bearer token (a client certificate cannot be checked by a TokenReview);"
            + " pass --token, e.g. --token \"$(kubectl create token NAME -n NS)\"");
  }

  /** Runs the kubeconfig's exec plugin as kubectl would and reads its ExecCredential. */
  private static String exec(String userName, JsonNode exec) {
    List<String> cmd = new ArrayList<>();
    cmd.add(exec.path("command").asText());
    exec.path("args").forEach(a -> cmd.add(a.asText()));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
    exec.path("env")
        .forEach(e -> pb.environment().put(e.path("name").asText(), e.path("value").asText()));
    pb.environment()
        .put(
            "KUBERNETES_EXEC_INFO",
            "{\"apiVersion\":\""
                + exec.path("apiVersion").asText("client.authentication.k8s.io/v1")
                + "\",\"kind\":\"ExecCredential\",\"spec\":{\"interactive\":false}}");
    try {
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.waitFor() != 0) {
        throw new Kubectl.Failure(
            "kubeconfig user " + userName + ": exec plugin " + cmd.get(0) + " failed");
      }
      JsonNode token = Kubectl.JSON.readTree(out).path("status").path("token");
      if (token.isMissingNode() || token.asText().isEmpty()) {
        throw new Kubectl.Failure(
            "kubeconfig user "
                + userName
                + ": exec plugin "
                + cmd.get(0)
                + " gave no token (status.token); pass --token");
      }
      return token.asText();
    } catch (IOException e) {
      throw new Kubectl.Failure(
          "kubeconfig user "
              + userName
              + ": cannot run exec plugin "
              + cmd.get(0)
              + ": "
              + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Kubectl.Failure("interrupted");
    }
  }
}
