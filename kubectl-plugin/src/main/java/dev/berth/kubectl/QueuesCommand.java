package dev.berth.kubectl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code kubectl berth queues}: per ClusterQueue and flavor-resource the usage against nominal
 * quota, what it borrows and what it lends; per LocalQueue its counts and usage. "Lent" is the
 * unused nominal quota (within the lending limit) that the other ClusterQueues of the cohort
 * borrow: exact with one lender, an upper bound per lender when several could lend.
 */
final class QueuesCommand {
  private QueuesCommand() {}

  static JsonNode data(Kubectl kubectl) {
    var cqCall = kubectl.get("clusterqueues.berth.dev");
    var lqCall = kubectl.get("localqueues.berth.dev", "--all-namespaces");
    return fromLists(Kubectl.await(cqCall), Kubectl.await(lqCall));
  }

  /** The rows of the ClusterQueue and LocalQueue lists (kubectl get -o json). */
  static JsonNode fromLists(JsonNode cqList, JsonNode lqList) {
    JsonNode cqs = cqList.path("items");
    JsonNode lqs = lqList.path("items");
    // Borrowed per cohort and flavor/resource, to tell each lender what the others borrow.
    Map<String, BigDecimal> borrowedInCohort = new HashMap<>();
    for (JsonNode cq : cqs) {
      String cohort = cq.path("spec").path("cohortName").asText("");
      forEachUsage(
          cq,
          (flavor, resource, total, borrowed) ->
              borrowedInCohort.merge(
                  cohort + "|" + flavor + "|" + resource, borrowed, BigDecimal::add));
    }
    ObjectNode out = Kubectl.JSON.createObjectNode();
    ArrayNode cqOut = out.putArray("clusterQueues");
    for (JsonNode cq : cqs) {
      String name = cq.path("metadata").path("name").asText();
      String cohort = cq.path("spec").path("cohortName").asText("");
      Map<String, BigDecimal[]> usage = new HashMap<>();
      forEachUsage(
          cq,
          (f, r, total, borrowed) -> usage.put(f + "|" + r, new BigDecimal[] {total, borrowed}));
      ObjectNode row = cqOut.addObject();
      row.put("name", name);
      row.put("cohort", cohort);
      row.put("pendingWorkloads", cq.path("status").path("pendingWorkloads").asInt(0));
      row.put("admittedWorkloads", cq.path("status").path("admittedWorkloads").asInt(0));
      ArrayNode resources = row.putArray("resources");
      for (JsonNode group : cq.path("spec").path("resourceGroups")) {
        for (JsonNode flavor : group.path("flavors")) {
          for (JsonNode rq : flavor.path("resources")) {
            String f = flavor.path("name").asText();
            String r = rq.path("name").asText();
            BigDecimal nominal = Quantities.parse(rq.path("nominalQuota").asText("0"));
            BigDecimal[] u =
                usage.getOrDefault(
                    f + "|" + r, new BigDecimal[] {BigDecimal.ZERO, BigDecimal.ZERO});
            BigDecimal lendable =
                rq.hasNonNull("lendingLimit")
                    ? nominal.min(Quantities.parse(rq.get("lendingLimit").asText()))
                    : nominal;
            BigDecimal unused = nominal.subtract(u[0]).max(BigDecimal.ZERO).min(lendable);
            BigDecimal others =
                cohort.isEmpty()
                    ? BigDecimal.ZERO
                    : borrowedInCohort
                        .getOrDefault(cohort + "|" + f + "|" + r, BigDecimal.ZERO)
                        .subtract(u[1]);
            ObjectNode res = resources.addObject();
            res.put("flavor", f);
            res.put("resource", r);
            res.put("usage", Quantities.format(u[0]));
            res.put("nominalQuota", Quantities.format(nominal));
            res.put("borrowed", Quantities.format(u[1]));
            res.put("lent", Quantities.format(unused.min(others.max(BigDecimal.ZERO))));
          }
        }
      }
    }
    ArrayNode lqOut = out.putArray("localQueues");
    for (JsonNode lq : lqs) {
      ObjectNode row = lqOut.addObject();
      row.put("namespace", lq.path("metadata").path("namespace").asText());
      row.put("name", lq.path("metadata").path("name").asText());
      row.put("clusterQueue", lq.path("spec").path("clusterQueue").asText());
      row.put("pendingWorkloads", lq.path("status").path("pendingWorkloads").asInt(0));
      row.put("admittedWorkloads", lq.path("status").path("admittedWorkloads").asInt(0));
      StringBuilder use = new StringBuilder();
      for (JsonNode f : lq.path("status").path("flavorsReservation")) {
        for (JsonNode r : f.path("resources")) {
          if (Quantities.parse(r.path("total").asText("0")).signum() != 0) {
            use.append(use.isEmpty() ? "" : ", ")
                .append(r.path("name").asText())
                .append(' ')
                .append(Quantities.format(Quantities.parse(r.path("total").asText())))
                .append(" (")
                .append(f.path("name").asText())
                .append(')');
          }
        }
      }
      row.put("usage", use.toString());
      row.put("recentUsage", recentUsage(lq));
    }
    return out;
  }

  static String table(JsonNode data, boolean colour) {
    Table cqs =
        new Table(
            "CLUSTERQUEUE",
            "COHORT",
            "FLAVOR",
            "RESOURCE",
            "USAGE/NOMINAL",
            "BORROWED",
            "LENT",
            "PENDING",
            "ADMITTED");
    for (JsonNode cq : data.path("clusterQueues")) {
      boolean first = true;
      for (JsonNode r : cq.path("resources")) {
        BigDecimal use = Quantities.parse(r.path("usage").asText());
        BigDecimal nominal = Quantities.parse(r.path("nominalQuota").asText());
        Table.Colour c =
            use.compareTo(nominal) > 0
                ? Table.Colour.YELLOW
                : use.compareTo(nominal) == 0 && nominal.signum() > 0
                    ? Table.Colour.RED
                    : Table.Colour.GREEN;
        cqs.row(
            first ? cq.path("name").asText() : "",
            first ? cq.path("cohort").asText() : "",
            r.path("flavor").asText(),
            r.path("resource").asText(),
            Table.coloured(r.path("usage").asText() + "/" + r.path("nominalQuota").asText(), c),
            r.path("borrowed").asText(),
            r.path("lent").asText(),
            first ? cq.path("pendingWorkloads").asText() : "",
            first ? cq.path("admittedWorkloads").asText() : "");
        first = false;
      }
      if (first) {
        cqs.row(
            cq.path("name").asText(),
            cq.path("cohort").asText(),
            "",
            "",
            "",
            "",
            "",
            cq.path("pendingWorkloads").asText(),
            cq.path("admittedWorkloads").asText());
      }
    }
    Table lqs =
        new Table(
            "NAMESPACE",
            "LOCALQUEUE",
            "CLUSTERQUEUE",
            "PENDING",
            "ADMITTED",
            "USAGE",
            "RECENT USAGE");
    for (JsonNode lq : data.path("localQueues")) {
      lqs.row(
          lq.path("namespace").asText(),
          lq.path("name").asText(),
          lq.path("clusterQueue").asText(),
          lq.path("pendingWorkloads").asText(),
          lq.path("admittedWorkloads").asText(),
          lq.path("usage").asText(),
          lq.path("recentUsage").asText());
    }
    return (cqs.isEmpty() ? "No ClusterQueues.\n" : cqs.render(colour))
        + "\n"
        + (lqs.isEmpty() ? "No LocalQueues.\n" : lqs.render(colour));
  }

  /**
   * Admission fair sharing's decayed usage of a LocalQueue (status.fairSharing
   * .admissionFairSharingStatus), to 3 significant digits; "-" when its ClusterQueue does not order
   * by usage (or nothing was sampled yet).
   */
  static String recentUsage(JsonNode lq) {
    JsonNode consumed =
        lq.path("status")
            .path("fairSharing")
            .path("admissionFairSharingStatus")
            .path("consumedResources");
    if (!consumed.isObject()) {
      return "-";
    }
    StringBuilder out = new StringBuilder();
    consumed
        .fields()
        .forEachRemaining(
            e ->
                out.append(out.isEmpty() ? "" : ", ")
                    .append(e.getKey())
                    .append(' ')
                    .append(
                        Quantities.format(
                            Quantities.parse(e.getValue().asText())
                                .round(new java.math.MathContext(3)))));
    return out.isEmpty() ? "0" : out.toString();
  }

  interface UsageVisitor {
    void visit(String flavor, String resource, BigDecimal total, BigDecimal borrowed);
  }

  /** Each flavor-resource of a ClusterQueue's status.flavorsReservation (quota reserved). */
  static void forEachUsage(JsonNode cq, UsageVisitor v) {
    for (JsonNode f : cq.path("status").path("flavorsReservation")) {
      for (JsonNode r : f.path("resources")) {
        v.visit(
            f.path("name").asText(),
            r.path("name").asText(),
            Quantities.parse(r.path("total").asText("0")),
            Quantities.parse(r.path("borrowed").asText("0")));
      }
    }
  }
}
