package dev.berth.kubectl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * {@code kubectl berth why NAME -n NS}: a Workload, or the Workload of a Job or JobSet of that
 * name: its state, the reason and message of its QuotaReserved condition, the whole explanation
 * (the last Pending Event), and its place and estimated start from the visibility API.
 */
final class WhyCommand {
  private WhyCommand() {}

  static JsonNode data(Options o, Kubectl kubectl, java.util.function.Supplier<Visibility> api) {
    if (o.args().size() != 1) {
      throw new Kubectl.Failure(
          "why needs one WORKLOAD or JOB name, e.g. kubectl berth why" + " my-job -n team-a");
    }
    String name = o.args().get(0);
    String ns = o.namespace();
    JsonNode list =
        Kubectl.await(
            ns == null
                ? kubectl.get("workloads.berth.dev")
                : kubectl.get("workloads.berth.dev", "-n", ns));
    JsonNode wl = null;
    for (JsonNode w : list.path("items")) {
      if (w.path("metadata").path("name").asText().equals(name)) {
        wl = w;
      }
    }
    if (wl == null) {
      for (JsonNode w : list.path("items")) {
        for (JsonNode ref : w.path("metadata").path("ownerReferences")) {
          if (ref.path("name").asText().equals(name)) {
            wl = w;
          }
        }
      }
    }
    if (wl == null) {
      throw new Kubectl.Failure(
          "no Workload and no Job or JobSet's Workload named "
              + name
              + " in namespace "
              + (ns == null ? "(kubectl's default)" : ns));
    }
    String wlNs = wl.path("metadata").path("namespace").asText();
    String wlName = wl.path("metadata").path("name").asText();
    var events =
        kubectl.get(
            "events",
            "-n",
            wlNs,
            "--field-selector",
            "involvedObject.uid=" + wl.path("metadata").path("uid").asText());
    ObjectNode out = Kubectl.JSON.createObjectNode();
    out.put("workload", wlNs + "/" + wlName);
    for (JsonNode ref : wl.path("metadata").path("ownerReferences")) {
      out.put("owner", ref.path("kind").asText() + " " + ref.path("name").asText());
    }
    out.put("localQueue", wl.path("spec").path("queueName").asText());
    out.put("state", state(wl));
    JsonNode reserved = condition(wl, "QuotaReserved");
    if (reserved != null) {
      out.put("reason", reserved.path("reason").asText());
      out.put("message", reserved.path("message").asText());
    }
    JsonNode idle = condition(wl, "OnIdleCapacity");
    if (isTrue(idle)) {
      out.put("onIdleCapacity", idle.path("message").asText());
    }
    String explanation = null;
    for (JsonNode e : Kubectl.await(events).path("items")) {
      if ("Pending".equals(e.path("reason").asText())) {
        explanation = e.path("message").asText();
      }
    }
    if (explanation != null) {
      out.put("explanation", explanation);
    }
    if ("Pending".equals(out.path("state").asText())) {
      try {
        JsonNode q = api.get().localQueue(wlNs, wl.path("spec").path("queueName").asText());
        for (JsonNode item : q.path("items")) {
          if (item.path("name").asText().equals(wlName)) {
            out.put("clusterQueue", item.path("clusterQueue").asText());
            out.put("positionInClusterQueue", item.path("positionInClusterQueue").asInt());
            out.put("positionInLocalQueue", item.path("positionInLocalQueue").asInt());
            out.set("estimatedStart", item.path("estimatedStart"));
            out.put("estimateBasis", item.path("estimateBasis").asText(""));
          }
        }
      } catch (RuntimeException e) {
        out.put("visibility", e.getMessage());
      }
    }
    return out;
  }

  private static String state(JsonNode wl) {
    if (isTrue(condition(wl, "Finished"))) {
      return "Finished";
    }
    if (isTrue(condition(wl, "Evicted"))) {
      return "Evicted";
    }
    if (isTrue(condition(wl, "Admitted"))) {
      return "Admitted";
    }
    if (isTrue(condition(wl, "QuotaReserved"))) {
      return "QuotaReserved";
    }
    return wl.path("spec").path("active").asBoolean(true) ? "Pending" : "Deactivated";
  }

  private static boolean isTrue(JsonNode c) {
    return c != null && "True".equals(c.path("status").asText());
  }

  private static JsonNode condition(JsonNode wl, String type) {
    for (JsonNode c : wl.path("status").path("conditions")) {
      if (type.equals(c.path("type").asText())) {
        return c;
      }
    }
    return null;
  }

  static String text(JsonNode data, boolean colour, Instant now) {
    StringBuilder out = new StringBuilder();
    line(out, "Workload", data.path("workload").asText(), colour);
    if (data.has("owner")) {
      line(out, "Owner", data.path("owner").asText(), colour);
    }
    line(out, "LocalQueue", data.path("localQueue").asText(), colour);
    if (data.has("clusterQueue")) {
      line(out, "ClusterQueue", data.path("clusterQueue").asText(), colour);
    }
    line(out, "State", data.path("state").asText(), colour);
    if (data.has("reason")) {
      String reason = data.path("reason").asText();
      String shown =
          colour && data.path("state").asText().equals("Pending")
              ? PendingCommand.reasonColour(reason).code + reason + "\u001b[0m"
              : reason;
      line(out, "Reason", shown, colour);
      line(out, "Message", data.path("message").asText(), colour);
    }
    if (data.has("onIdleCapacity")) {
      line(out, "Idle capacity", data.path("onIdleCapacity").asText(), colour);
    }
    if (data.has("positionInClusterQueue")) {
      line(
          out,
          "Position",
          data.path("positionInClusterQueue").asInt()
              + " in ClusterQueue, "
              + data.path("positionInLocalQueue").asInt()
              + " in LocalQueue (0 = next)",
          colour);
      line(
          out,
          "Estimated start",
          PendingCommand.estimate(data.path("estimatedStart"), now)
              + " ["
              + data.path("estimateBasis").asText()
              + "]",
          colour);
    }
    if (data.has("visibility")) {
      line(out, "Position", "not known: " + data.path("visibility").asText(), colour);
    }
    if (data.has("explanation")) {
      line(out, "Explanation", data.path("explanation").asText(), colour);
    }
    return out.toString();
  }

  private static void line(StringBuilder out, String key, String value, boolean colour) {
    String label = String.format("%-17s", key + ":");
    out.append(colour ? "\u001b[1m" + label + "\u001b[0m" : label).append(value).append('\n');
  }
}
