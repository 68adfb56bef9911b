package dev.berth.kubectl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;

/**
 * {@code kubectl berth pending [-n NS] [--cq CQ]}: pending workloads in admission order from the
 * visibility API: one ClusterQueue (--cq), the LocalQueues of a namespace (-n), or every
 * ClusterQueue, each with its owner (the Job, RayJob, ... it was made for) and the owner's own
 * state. Only what the user may list is shown (the operator asks the API server).
 */
final class PendingCommand {
  private PendingCommand() {}

  static JsonNode data(Options o, Kubectl kubectl, Visibility api) {
    ObjectNode out = Kubectl.JSON.createObjectNode();
    ArrayNode items = out.putArray("items");
    if (o.clusterQueue() != null) {
      api.clusterQueue(o.clusterQueue()).path("items").forEach(items::add);
    } else if (o.namespace() != null) {
      for (JsonNode lq :
          Kubectl.await(kubectl.get("localqueues.berth.dev", "-n", o.namespace())).path("items")) {
        api.localQueue(o.namespace(), lq.path("metadata").path("name").asText())
            .path("items")
            .forEach(items::add);
      }
    } else {
      for (JsonNode cq : Kubectl.await(kubectl.get("clusterqueues.berth.dev")).path("items")) {
        api.clusterQueue(cq.path("metadata").path("name").asText())
            .path("items")
            .forEach(items::add);
      }
    }
    return out;
  }

  static String table(JsonNode data, boolean colour, Instant now) {
    Table t =
        new Table(
            "CLUSTERQUEUE",
            "POS",
            "NAMESPACE",
            "WORKLOAD",
            "OWNER",
            "OWNER STATUS",
            "LOCALQUEUE",
            "LQPOS",
            "PRIORITY",
            "REASON",
            "ESTIMATED START",
            "BASIS",
            "MESSAGE");
    for (JsonNode w : data.path("items")) {
      String reason = w.path("reason").asText();
      t.row(
          w.path("clusterQueue").asText(),
          w.path("positionInClusterQueue").asText(),
          w.path("namespace").asText(),
          w.path("name").asText(),
          owner(w.path("owner")),
          w.path("owner").path("status").asText(""),
          w.path("localQueueName").asText(),
          w.path("positionInLocalQueue").asText(),
          w.path("priority").asText(),
          Table.coloured(reason, reasonColour(reason)),
          estimate(w.path("estimatedStart"), now),
          w.path("estimateBasis").asText(""),
          w.path("message").asText());
    }
    return t.isEmpty() ? "No pending workloads.\n" : t.render(colour);
  }

  /**
   * "RayJob/train", "Pod/web-0 +3" for a pod group of four; empty when the operator names none (an
   * operator without owners in its answers, or a Workload written by hand).
   */
  static String owner(JsonNode owner) {
    if (owner.isMissingNode() || owner.isNull()) {
      return "";
    }
    int others = owner.path("count").asInt(1) - 1;
    return owner.path("kind").asText()
        + "/"
        + owner.path("name").asText()
        + (others > 0 ? " +" + others : "");
  }

  static Table.Colour reasonColour(String reason) {
    return switch (reason) {
      case "WaitingForQuota", "WaitingForPreemptedWorkloads" -> Table.Colour.YELLOW;
      case "" -> Table.Colour.NONE;
      default -> Table.Colour.RED;
    };
  }

  /** "in 12m (16:20Z)", "now", or "unknown". */
  static String estimate(JsonNode at, Instant now) {
    if (at == null || at.isNull() || at.isMissingNode() || at.asText().isEmpty()) {
      return "unknown";
    }
    Instant when = Instant.parse(at.asText());
    Duration d = Duration.between(now, when);
    String clock =
        when.truncatedTo(java.time.temporal.ChronoUnit.MINUTES).toString().replace(":00Z", "Z");
    return d.getSeconds() < 30 ? "now (" + clock + ")" : "in " + human(d) + " (" + clock + ")";
  }

  static String human(Duration d) {
    long s = d.getSeconds();
    if (s < 90) {
      return s + "s";
    }
    if (s < 90 * 60) {
      return (s + 30) / 60 + "m";
    }
    if (s < 48 * 3600) {
      return s / 3600 + "h" + (s % 3600) / 60 + "m";
    }
    return s / 86400 + "d" + (s % 86400) / 3600 + "h";
  }
}
