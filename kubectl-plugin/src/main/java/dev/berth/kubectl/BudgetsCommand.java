package dev.berth.kubectl;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code kubectl berth budgets}: every Budget's current window (docs/budgets.md), one row per
 * limited resource: whose it is, hours used and allowed, whether it is spent and when it resets.
 * Read through kubectl ({@code kubectl get budgets}), so RBAC applies as there.
 */
final class BudgetsCommand {
  private BudgetsCommand() {}

  static JsonNode data(Options o, Kubectl kubectl) throws Options.UsageError {
    if (!o.flags().isEmpty() || !o.args().isEmpty()) {
      throw new Options.UsageError("budgets takes no arguments or flags but -o");
    }
    return Kubectl.await(kubectl.get("budgets.berth.dev"));
  }

  static String table(JsonNode budgets) {
    Table t =
        new Table(
            "NAME",
            "TARGET",
            "PERIOD",
            "WINDOW",
            "RESOURCE",
            "USED-HOURS",
            "LIMIT-HOURS",
            "EXHAUSTED",
            "RESETS");
    for (JsonNode b : budgets.path("items")) {
      JsonNode spec = b.path("spec");
      JsonNode status = b.path("status");
      String target =
          spec.has("localQueue")
              ? "LocalQueue "
                  + spec.path("localQueue").path("namespace").asText()
                  + "/"
                  + spec.path("localQueue").path("name").asText()
              : spec.has("clusterQueue")
                  ? "ClusterQueue " + spec.path("clusterQueue").asText()
                  : "cost centre " + spec.path("costCentre").asText();
      String period = spec.path("period").asText() + " " + spec.path("timeZone").asText();
      for (JsonNode limit : spec.path("limits")) {
        String resource = limit.path("resource").asText();
        JsonNode use = null;
        for (JsonNode r : status.path("resources")) {
          if (r.path("resource").asText().equals(resource)) {
            use = r;
          }
        }
        t.row(
            b.path("metadata").path("name").asText(),
            target,
            period,
            status.path("window").asText(),
            resource,
            use == null ? "" : use.path("usedHours").asText(),
            limit.path("hours").asText(),
            (status.has("exhausted") ? status.path("exhausted").asText() : "")
                // A spent budget that lets its workloads run on idle capacity says so.
                + ("RunOnIdleCapacity".equals(spec.path("whenExhausted").asText())
                    ? " (RunOnIdleCapacity)"
                    : ""),
            status.path("resetsAt").asText());
      }
    }
    return t.isEmpty() ? "No budgets.\n" : t.render(false);
  }
}
