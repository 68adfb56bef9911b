package dev.berth.kubectl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code kubectl berth cohorts}: the cohort tree (Cohorts by spec.parentName, ClusterQueues by
 * spec.cohortName; a cohort only named by others appears too) with each node's own nominal quota,
 * its fair-sharing weight and its weighted share (status.fairSharing.weightedShare, in thousandths
 * on the object, shown as a fraction). A weight counts against the node's siblings under its
 * parent, so a root (a Cohort without parent, a ClusterQueue without cohort) shows none.
 */
final class CohortsCommand {
  private CohortsCommand() {}

  static JsonNode data(Kubectl kubectl) {
    var cohortCall = kubectl.get("cohorts.berth.dev");
    var cqCall = kubectl.get("clusterqueues.berth.dev");
    return fromLists(Kubectl.await(cohortCall), Kubectl.await(cqCall));
  }

  /** The tree of the Cohort and ClusterQueue lists (kubectl get -o json). */
  static JsonNode fromLists(JsonNode cohortList, JsonNode cqList) {
    Map<String, ObjectNode> cohorts = new TreeMap<>();
    Map<String, String> parentOf = new TreeMap<>();
    for (JsonNode c : cohortList.path("items")) {
      String name = c.path("metadata").path("name").asText();
      cohorts.put(name, node(name, "Cohort", c));
      String parent = c.path("spec").path("parentName").asText("");
      if (!parent.isEmpty()) {
        parentOf.put(name, parent);
      }
    }
    List<ObjectNode> standalone = new ArrayList<>();
    Map<String, List<ObjectNode>> queuesOf = new TreeMap<>();
    for (JsonNode cq : cqList.path("items")) {
      ObjectNode n = node(cq.path("metadata").path("name").asText(), "ClusterQueue", cq);
      String cohort = cq.path("spec").path("cohortName").asText("");
      if (cohort.isEmpty()) {
        standalone.add(n);
      } else {
        queuesOf.computeIfAbsent(cohort, k -> new ArrayList<>()).add(n);
        cohorts.computeIfAbsent(cohort, k -> implicit(k));
      }
    }
    for (String parent : List.copyOf(parentOf.values())) {
      cohorts.computeIfAbsent(parent, CohortsCommand::implicit);
    }
    ObjectNode out = Kubectl.JSON.createObjectNode();
    ArrayNode roots = out.putArray("roots");
    for (var e : cohorts.entrySet()) {
      ObjectNode c = e.getValue();
      ArrayNode children = c.putArray("children");
      for (var child : parentOf.entrySet()) {
        if (child.getValue().equals(e.getKey())) {
          children.add(cohorts.get(child.getKey()));
        }
      }
      queuesOf.getOrDefault(e.getKey(), List.of()).forEach(children::add);
      if (!parentOf.containsKey(e.getKey())) {
        roots.add(c);
      }
    }
    standalone.forEach(roots::add);
    // A root competes with nobody: its weight would count for nothing.
    roots.forEach(r -> ((ObjectNode) r).put("weight", "-"));
    return out;
  }

  private static ObjectNode node(String name, String kind, JsonNode obj) {
    ObjectNode n = Kubectl.JSON.createObjectNode();
    n.put("name", name);
    n.put("kind", kind);
    List<String> quota = new ArrayList<>();
    for (JsonNode g : obj.path("spec").path("resourceGroups")) {
      for (JsonNode f : g.path("flavors")) {
        for (JsonNode r : f.path("resources")) {
          quota.add(
              r.path("name").asText()
                  + " "
                  + Quantities.format(Quantities.parse(r.path("nominalQuota").asText("0")))
                  + " ("
                  + f.path("name").asText()
                  + ")");
        }
      }
    }
    n.put("quota", String.join(", ", quota));
    n.put("weight", obj.path("spec").path("fairSharing").path("weight").asText("1"));
    JsonNode share = obj.path("status").path("fairSharing").path("weightedShare");
    if (share.isNumber()) {
      n.put(
          "weightedShare",
          share.asLong() == Long.MAX_VALUE
              ? "inf"
              : String.format("%.3f", share.asLong() / 1000.0));
    } else {
      n.put("weightedShare", "0.000");
    }
    return n;
  }

  private static ObjectNode implicit(String name) {
    ObjectNode n = node(name, "Cohort", Kubectl.JSON.createObjectNode());
    n.put("kind", "Cohort (implicit)");
    return n;
  }

  static String table(JsonNode data, boolean colour) {
    Table t = new Table("NAME", "KIND", "NOMINAL QUOTA", "WEIGHT", "WEIGHTED SHARE");
    JsonNode roots = data.path("roots");
    for (int i = 0; i < roots.size(); i++) {
      add(t, roots.get(i), "", "", true);
    }
    return t.isEmpty() ? "No cohorts or ClusterQueues.\n" : t.render(colour);
  }

  private static void add(Table t, JsonNode n, String prefix, String childPrefix, boolean root) {
    t.row(
        prefix + n.path("name").asText(),
        n.path("kind").asText(),
        n.path("quota").asText(),
        n.path("weight").asText(),
        n.path("weightedShare").asText());
    JsonNode children = n.path("children");
    for (int i = 0; i < children.size(); i++) {
      boolean last = i == children.size() - 1;
      add(
          t,
          children.get(i),
          childPrefix + (last ? "└─ " : "├─ "),
          childPrefix + (last ? "   " : "│  "),
          false);
    }
  }
}
