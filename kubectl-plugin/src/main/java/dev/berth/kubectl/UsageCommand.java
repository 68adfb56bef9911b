package dev.berth.kubectl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.YearMonth;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code kubectl berth usage}: the monthly UsageReports (docs/capacity.md) summed per namespace,
 * LocalQueue, ClusterQueue or cost centre, per flavor and resource, as the operator's {@code
 * /usage} sums them; read through kubectl (RBAC as for {@code kubectl get usagereports}), or from
 * {@code /usage} itself with {@code --usage-url}. Both give /usage's JSON rows, shown as one table.
 */
final class UsageCommand {
  private UsageCommand() {}

  static final List<String> BY = List.of("namespace", "localqueue", "clusterqueue", "cost-centre");

  static JsonNode data(Options o, Kubectl kubectl) throws Options.UsageError {
    for (String flag : o.flags().keySet()) {
      if (!List.of("--by", "--from", "--to", "--usage-url").contains(flag)) {
        throw new Options.UsageError(flag + " is not a flag of usage");
      }
    }
    String by = o.flags().getOrDefault("--by", "namespace");
    if (!BY.contains(by)) {
      throw new Options.UsageError(
          "--by: \"" + by + "\" is not namespace, localqueue, clusterqueue or cost-centre");
    }
    YearMonth from = month(o, "--from");
    YearMonth to = month(o, "--to");
    if (o.has("--usage-url")) {
      if (o.namespace() != null || o.allNamespaces()) {
        throw new Options.UsageError(
            "--usage-url: the operator's /usage sums every namespace; -n and -A apply to the"
                + " reports read through kubectl");
      }
      return fromEndpoint(o.flag("--usage-url"), by, from, to);
    }
    JsonNode reports =
        Kubectl.await(
            o.allNamespaces()
                ? kubectl.get("usagereports.berth.dev", "--all-namespaces")
                : o.namespace() != null
                    ? kubectl.get("usagereports.berth.dev", "--namespace=" + o.namespace())
                    : kubectl.get("usagereports.berth.dev"));
    return sum(reports, by, from, to);
  }

  private static YearMonth month(Options o, String flag) throws Options.UsageError {
    String text = o.flag(flag);
    if (text == null) {
      return null;
    }
    try {
      return YearMonth.parse(text);
    } catch (DateTimeParseException e) {
      throw new Options.UsageError(flag + ": \"" + text + "\" is not a month such as 2026-12");
    }
  }

  /** The reports of {@code from} (inclusive) to {@code to} (exclusive), summed as /usage does. */
  static JsonNode sum(JsonNode reports, String by, YearMonth from, YearMonth to) {
    // Keyed by group, flavor and resource joined with NUL: sorted as /usage sorts its rows.
    Map<String, BigDecimal[]> sums = new TreeMap<>();
    Map<String, Integer> runs = new TreeMap<>();
    for (JsonNode report : reports.path("items")) {
      YearMonth month;
      try {
        month = YearMonth.parse(report.path("spec").path("month").asText(""));
      } catch (DateTimeParseException e) {
        continue;
      }
      if ((from != null && month.isBefore(from)) || (to != null && !month.isBefore(to))) {
        continue;
      }
      String ns = report.path("metadata").path("namespace").asText();
      for (JsonNode e : report.path("status").path("entries")) {
        String group =
            switch (by) {
              case "localqueue" -> ns + "/" + e.path("localQueue").asText("");
              case "clusterqueue" -> e.path("clusterQueue").asText("");
              case "cost-centre" -> e.path("costCentre").asText("");
              default -> ns;
            };
        String key =
            String.join("\0", group, e.path("flavor").asText(""), e.path("resource").asText(""));
        BigDecimal[] s =
            sums.computeIfAbsent(
                key, k -> new BigDecimal[] {BigDecimal.ZERO, BigDecimal.ZERO, BigDecimal.ZERO});
        s[0] = s[0].add(decimal(e.path("resourceSeconds")));
        s[1] = s[1].add(decimal(e.path("measuredResourceSeconds")));
        s[2] = s[2].add(decimal(e.path("usedResourceSeconds")));
        runs.merge(key, e.path("runs").asInt(0), Integer::sum);
      }
    }
    ObjectNode out = Kubectl.JSON.createObjectNode();
    out.put("by", by);
    ArrayNode rows = out.putArray("rows");
    for (var entry : sums.entrySet()) {
      String[] key = entry.getKey().split("\0", -1);
      BigDecimal[] s = entry.getValue();
      boolean measured = s[1].signum() > 0;
      ObjectNode row = rows.addObject();
      row.put(by, key[0]);
      row.put("flavor", key[1]);
      row.put("resource", key[2]);
      row.put("resourceSeconds", text(s[0]));
      row.put("resourceHours", hours(s[0]));
      putOrNull(row, "measuredResourceSeconds", measured ? text(s[1]) : null);
      putOrNull(row, "usedResourceSeconds", measured ? text(s[2]) : null);
      putOrNull(row, "usedResourceHours", measured ? hours(s[2]) : null);
      putOrNull(
          row, "utilization", measured ? text(s[2].divide(s[1], 4, RoundingMode.HALF_UP)) : null);
      row.put("runs", runs.get(entry.getKey()));
    }
    return out;
  }

  private static void putOrNull(ObjectNode row, String field, String value) {
    if (value == null) {
      row.putNull(field);
    } else {
      row.put(field, value);
    }
  }

  private static BigDecimal decimal(JsonNode n) {
    String t = n.asText("");
    return t.isEmpty() ? BigDecimal.ZERO : new BigDecimal(t);
  }

  private static String text(BigDecimal v) {
    BigDecimal s = v.stripTrailingZeros();
    return (s.scale() < 0 ? s.setScale(0) : s).toPlainString();
  }

  private static String hours(BigDecimal seconds) {
    return text(seconds.divide(BigDecimal.valueOf(3600), 6, RoundingMode.HALF_UP));
  }

  /** {@code GET URL/usage?by=&from=&to=&format=json} on the operator's metrics port. */
  static JsonNode fromEndpoint(String base, String by, YearMonth from, YearMonth to) {
    StringBuilder url =
        new StringBuilder(base.endsWith("/") ? base.substring(0, base.length() - 1) : base)
            .append("/usage?format=json&by=")
            .append(URLEncoder.encode(by, StandardCharsets.UTF_8));
    if (from != null) {
      url.append("&from=").append(from);
    }
    if (to != null) {
      url.append("&to=").append(to);
    }
    try {
      HttpURLConnection c = (HttpURLConnection) URI.create(url.toString()).toURL().openConnection();
      c.setConnectTimeout(5_000);
      c.setReadTimeout(30_000);
      int code = c.getResponseCode();
      try (InputStream body = code >= 400 ? c.getErrorStream() : c.getInputStream()) {
        String text = body == null ? "" : new String(body.readAllBytes(), StandardCharsets.UTF_8);
        if (code != 200) {
          throw new Kubectl.Failure(url + " answered " + code + ": " + Kubectl.oneLine(text));
        }
        return Kubectl.JSON.readTree(text);
      }
    } catch (IllegalArgumentException | IOException e) {
      throw new Kubectl.Failure(
          "cannot read the operator's usage at "
              + url
              + " ("
              + e.getMessage()
              + "); --usage-url is its metrics port, e.g. after kubectl -n "
              + ChartDefaults.NAMESPACE
              + " port-forward deploy/"
              + ChartDefaults.SERVICE
              + " 8080");
    }
  }

  static String table(JsonNode data) {
    String by = data.path("by").asText("namespace");
    Table t =
        new Table(
            by.toUpperCase(java.util.Locale.ROOT),
            "FLAVOR",
            "RESOURCE",
            "RUNS",
            "RESOURCE-HOURS",
            "USED-HOURS",
            "UTILIZATION");
    for (JsonNode row : data.path("rows")) {
      t.row(
          row.path(by).asText(),
          row.path("flavor").asText(),
          row.path("resource").asText(),
          row.path("runs").asText(),
          row.path("resourceHours").asText(),
          row.path("usedResourceHours").isNull() ? "" : row.path("usedResourceHours").asText(),
          row.path("utilization").isNull() ? "" : row.path("utilization").asText());
    }
    return t.isEmpty() ? "No usage recorded.\n" : t.render(false);
  }
}
