package dev.berth.kubectl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code kubectl berth list workloads|clusterqueues|localqueues}: kueuectl's lists, read through
 * {@code kubectl get} (so RBAC applies as to kubectl) and filtered here by queue and status.
 */
final class ListCommand {
  private ListCommand() {}

  static final Set<String> STATUSES =
      Set.of("all", "pending", "quotareserved", "admitted", "finished");

  /** The rows, for -o and for the table. */
  static JsonNode data(Options o, Kubectl kubectl) throws Options.UsageError {
    String kind = Kinds.canonical(o.arg(0));
    if (kind == null) {
      throw new Options.UsageError(
          o.arg(0) == null
              ? "list needs workloads, clusterqueues or localqueues"
              : "list: " + o.arg(0) + " is not workloads, clusterqueues or localqueues");
    }
    Set<String> allowed =
        switch (kind) {
          case "workload" -> Set.of("--localqueue", "--status", "--selector");
          case "clusterqueue" -> Set.of("--active", "--selector");
          default -> Set.of("--selector");
        };
    for (String flag : o.flags().keySet()) {
      if (!allowed.contains(flag)) {
        throw new Options.UsageError(flag + " is not a flag of list " + kind + "s");
      }
    }
    Set<String> statuses = statuses(o.flag("--status"));
    String active = o.flag("--active");
    if (active != null && !active.equals("true") && !active.equals("false")) {
      throw new Options.UsageError("--active: \"" + active + "\" is not true or false");
    }
    List<String> scope = new ArrayList<>();
    if (!kind.equals("clusterqueue")) {
      if (o.allNamespaces()) {
        scope.add("--all-namespaces");
      } else if (o.namespace() != null) {
        scope.add("--namespace=" + o.namespace());
      }
    }
    if (o.flag("--selector") != null) {
      scope.add("--selector=" + o.flag("--selector"));
    }
    var call = kubectl.get(withScope(Kinds.resource(kind), scope));
    return switch (kind) {
      case "workload" -> {
        // The LocalQueues name the ClusterQueue of a workload not yet admitted; a user who may
        // not read them still gets the list, with the admitted ones' ClusterQueue only.
        List<String> lqScope = scope.stream().filter(s -> !s.startsWith("--selector")).toList();
        var lqCall = kubectl.get(withScope(Kinds.resource("localqueue"), lqScope));
        JsonNode lqs;
        try {
          lqs = Kubectl.await(lqCall);
        } catch (Kubectl.Failure e) {
          lqs = Kubectl.JSON.createObjectNode();
        }
        yield workloads(
            Kubectl.await(call),
            lqs,
            o.clusterQueue(),
            o.flag("--localqueue"),
            statuses,
            Instant.now());
      }
      case "clusterqueue" -> clusterQueues(Kubectl.await(call), active, Instant.now());
      default -> localQueues(Kubectl.await(call), o.clusterQueue(), Instant.now());
    };
  }

  private static String[] withScope(String resource, List<String> scope) {
    List<String> args = new ArrayList<>(List.of(resource));
    args.addAll(scope);
    return args.toArray(String[]::new);
  }

  static Set<String> statuses(String flag) throws Options.UsageError {
    Set<String> out = new LinkedHashSet<>();
    for (String s : (flag == null ? "all" : flag).split(",")) {
      String v = s.strip().toLowerCase(java.util.Locale.ROOT);
      if (!STATUSES.contains(v)) {
        throw new Options.UsageError(
            "--status: \""
                + s.strip()
                + "\" is not all, pending, quotareserved, admitted or finished");
      }
      out.add(v);
    }
    return out;
  }

  /** FINISHED, ADMITTED, QUOTARESERVED or PENDING, from the Workload's conditions. */
  static String status(JsonNode wl) {
    for (String type : List.of("Finished", "Admitted", "QuotaReserved")) {
      if (conditionTrue(wl, type)) {
        return type.toUpperCase(java.util.Locale.ROOT);
      }
    }
    return "PENDING";
  }

  private static JsonNode condition(JsonNode o, String type) {
    for (JsonNode c : o.path("status").path("conditions")) {
      if (type.equals(c.path("type").asText())) {
        return c;
      }
    }
    return null;
  }

  private static boolean conditionTrue(JsonNode o, String type) {
    JsonNode c = condition(o, type);
    return c != null && "True".equals(c.path("status").asText());
  }

  static JsonNode workloads(
      JsonNode list,
      JsonNode lqs,
      String clusterQueue,
      String localQueue,
      Set<String> statuses,
      Instant now) {
    Map<String, String> cqOfLq = new HashMap<>();
    for (JsonNode lq : lqs.path("items")) {
      cqOfLq.put(
          lq.path("metadata").path("namespace").asText()
              + "/"
              + lq.path("metadata").path("name").asText(),
          lq.path("spec").path("clusterQueue").asText());
    }
    ObjectNode out = Kubectl.JSON.createObjectNode();
    ArrayNode items = out.putArray("items");
    for (JsonNode wl : list.path("items")) {
      String ns = wl.path("metadata").path("namespace").asText();
      String lq = wl.path("spec").path("queueName").asText("");
      String cq = wl.path("status").path("admission").path("clusterQueue").asText("");
      if (cq.isEmpty()) {
        cq = cqOfLq.getOrDefault(ns + "/" + lq, "");
      }
      String status = status(wl);
      if ((clusterQueue != null && !clusterQueue.equals(cq))
          || (localQueue != null && !localQueue.equals(lq))
          || !(statuses.contains("all")
              || statuses.contains(status.toLowerCase(java.util.Locale.ROOT)))) {
        continue;
      }
      JsonNode owner = wl.path("metadata").path("ownerReferences").path(0);
      ObjectNode row = items.addObject();
      row.put("namespace", ns);
      row.put("name", wl.path("metadata").path("name").asText());
      row.put("jobType", owner.path("kind").asText(""));
      row.put("jobName", owner.path("name").asText(""));
      row.put("localQueue", lq);
      row.put("clusterQueue", cq);
      row.put("status", status);
      row.put("active", wl.path("spec").path("active").asBoolean(true));
      row.put("execTime", execTime(wl, now));
      row.put("age", age(wl, now));
    }
    return out;
  }

  /** From the admission to now, or to the finish: "" when never admitted. */
  static String execTime(JsonNode wl, Instant now) {
    JsonNode admitted = condition(wl, "Admitted");
    boolean finished = conditionTrue(wl, "Finished");
    if (admitted == null || !("True".equals(admitted.path("status").asText()) || finished)) {
      return "";
    }
    Instant from = Instant.parse(admitted.path("lastTransitionTime").asText());
    Instant to =
        finished
            ? Instant.parse(condition(wl, "Finished").path("lastTransitionTime").asText())
            : now;
    return human(Duration.between(from, to));
  }

  static JsonNode clusterQueues(JsonNode list, String active, Instant now) {
    ObjectNode out = Kubectl.JSON.createObjectNode();
    ArrayNode items = out.putArray("items");
    for (JsonNode cq : list.path("items")) {
      boolean isActive = conditionTrue(cq, "Active");
      if (active != null && Boolean.parseBoolean(active) != isActive) {
        continue;
      }
      ObjectNode row = items.addObject();
      row.put("name", cq.path("metadata").path("name").asText());
      row.put("cohort", cq.path("spec").path("cohortName").asText(""));
      row.put("pendingWorkloads", cq.path("status").path("pendingWorkloads").asInt(0));
      row.put("admittedWorkloads", cq.path("status").path("admittedWorkloads").asInt(0));
      row.put("active", isActive);
      row.put("stopPolicy", cq.path("spec").path("stopPolicy").asText("None"));
      row.put("age", age(cq, now));
    }
    return out;
  }

  static JsonNode localQueues(JsonNode list, String clusterQueue, Instant now) {
    ObjectNode out = Kubectl.JSON.createObjectNode();
    ArrayNode items = out.putArray("items");
    for (JsonNode lq : list.path("items")) {
      String cq = lq.path("spec").path("clusterQueue").asText();
      if (clusterQueue != null && !clusterQueue.equals(cq)) {
        continue;
      }
      ObjectNode row = items.addObject();
      row.put("namespace", lq.path("metadata").path("namespace").asText());
      row.put("name", lq.path("metadata").path("name").asText());
      row.put("clusterQueue", cq);
      row.put("pendingWorkloads", lq.path("status").path("pendingWorkloads").asInt(0));
      row.put("admittedWorkloads", lq.path("status").path("admittedWorkloads").asInt(0));
      row.put("stopPolicy", lq.path("spec").path("stopPolicy").asText("None"));
      row.put("age", age(lq, now));
    }
    return out;
  }

  /** The table of {@link #data}; a NAMESPACE column with -A, as kubectl's. */
  static String table(String kind, JsonNode data, boolean allNamespaces, boolean colour) {
    Table t;
    List<String> fields;
    switch (kind) {
      case "workload" -> {
        t =
            headers(
                allNamespaces,
                "NAME",
                "JOB TYPE",
                "JOB NAME",
                "LOCALQUEUE",
                "CLUSTERQUEUE",
                "STATUS",
                "ACTIVE",
                "EXEC TIME",
                "AGE");
        fields =
            List.of(
                "name",
                "jobType",
                "jobName",
                "localQueue",
                "clusterQueue",
                "status",
                "active",
                "execTime",
                "age");
      }
      case "clusterqueue" -> {
        t =
            new Table(
                "NAME",
                "COHORT",
                "PENDING WORKLOADS",
                "ADMITTED WORKLOADS",
                "ACTIVE",
                "STOP POLICY",
                "AGE");
        fields =
            List.of(
                "name",
                "cohort",
                "pendingWorkloads",
                "admittedWorkloads",
                "active",
                "stopPolicy",
                "age");
        allNamespaces = false;
      }
      default -> {
        t =
            headers(
                allNamespaces,
                "NAME",
                "CLUSTERQUEUE",
                "PENDING WORKLOADS",
                "ADMITTED WORKLOADS",
                "STOP POLICY",
                "AGE");
        fields =
            List.of(
                "name",
                "clusterQueue",
                "pendingWorkloads",
                "admittedWorkloads",
                "stopPolicy",
                "age");
      }
    }
    for (JsonNode item : data.path("items")) {
      List<Object> cells = new ArrayList<>();
      if (allNamespaces) {
        cells.add(item.path("namespace").asText());
      }
      for (String f : fields) {
        cells.add(cell(f, item.path(f).asText()));
      }
      t.row(cells.toArray());
    }
    return t.isEmpty() ? "No resources found.\n" : t.render(colour);
  }

  private static Object cell(String field, String text) {
    if (field.equals("status")) {
      return Table.coloured(
          text,
          switch (text) {
            case "ADMITTED" -> Table.Colour.GREEN;
            case "PENDING" -> Table.Colour.YELLOW;
            default -> Table.Colour.NONE;
          });
    }
    if ((field.equals("active") && text.equals("false"))
        || (field.equals("stopPolicy") && !text.equals("None"))) {
      return Table.coloured(text, Table.Colour.RED);
    }
    return text;
  }

  private static Table headers(boolean allNamespaces, String... headers) {
    if (!allNamespaces) {
      return new Table(headers);
    }
    String[] h = new String[headers.length + 1];
    h[0] = "NAMESPACE";
    System.arraycopy(headers, 0, h, 1, headers.length);
    return new Table(h);
  }

  static String age(JsonNode o, Instant now) {
    String created = o.path("metadata").path("creationTimestamp").asText("");
    return created.isEmpty() ? "" : human(Duration.between(Instant.parse(created), now));
  }

  /** As kubectl prints ages: 45s, 12m, 5h, 3d. */
  static String human(Duration d) {
    long s = Math.max(0, d.getSeconds());
    if (s < 120) {
      return s + "s";
    }
    if (s < 120 * 60) {
      return s / 60 + "m";
    }
    if (s < 48 * 3600) {
      return s / 3600 + "h";
    }
    return s / 86400 + "d";
  }
}
