package dev.berth.operator.usage;

import dev.berth.api.v1beta1.UsageReport;
import dev.berth.api.v1beta1.UsageReportStatus;
import dev.berth.engine.usage.UsageTotals;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.YearMonth;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Sums the monthly UsageReports by namespace, LocalQueue, ClusterQueue or cost centre, per flavor
 * and resource, over the months from {@code from} (inclusive) to {@code to} (exclusive).
 */
public final class UsageSummary {
  /** What rows are grouped by, as the query parameter spells it. */
  public enum By {
    NAMESPACE("namespace"),
    LOCAL_QUEUE("localqueue"),
    CLUSTER_QUEUE("clusterqueue"),
    COST_CENTRE("cost-centre");

    final String text;

    By(String text) {
      this.text = text;
    }

    public static By parse(String text) {
      for (By by : values()) {
        if (by.text.equals(text)) {
          return by;
        }
      }
      throw new IllegalArgumentException(
          "by: must be one of namespace, localqueue, clusterqueue, cost-centre, not \""
              + text
              + "\"");
    }
  }

  /**
   * One group's use of one resource in one flavor over {@code runs} runs; measured and used are
   * zero when the DCGM join measured none of them.
   */
  public record Row(
      String group,
      String flavor,
      String resource,
      BigDecimal resourceSeconds,
      BigDecimal measuredResourceSeconds,
      BigDecimal usedResourceSeconds,
      int runs) {
    Row plus(Row o) {
      return new Row(
          group,
          flavor,
          resource,
          resourceSeconds.add(o.resourceSeconds),
          measuredResourceSeconds.add(o.measuredResourceSeconds),
          usedResourceSeconds.add(o.usedResourceSeconds),
          runs + o.runs);
    }

    public boolean measured() {
      return measuredResourceSeconds.signum() > 0;
    }

    /** used ÷ measured, four decimals; null when nothing was measured. */
    public BigDecimal utilization() {
      return measured()
          ? usedResourceSeconds.divide(measuredResourceSeconds, 4, RoundingMode.HALF_UP)
          : null;
    }
  }

  private UsageSummary() {}

  /**
   * @param from first month, or null; @param to first month not included, or null
   */
  public static List<Row> of(List<UsageReport> reports, By by, YearMonth from, YearMonth to) {
    Map<List<String>, Row> rows = new TreeMap<>(UsageSummary::compare);
    for (UsageReport report : reports) {
      YearMonth month = month(report);
      UsageReportStatus status = report.getStatus();
      if (month == null
          || status == null
          || status.entries == null
          || (from != null && month.isBefore(from))
          || (to != null && !month.isBefore(to))) {
        continue;
      }
      String namespace = report.getMetadata().getNamespace();
      for (UsageReportStatus.Entry e : status.entries) {
        String group =
            switch (by) {
              case NAMESPACE -> namespace;
              case LOCAL_QUEUE -> namespace + "/" + e.localQueue;
              case CLUSTER_QUEUE -> e.clusterQueue;
              case COST_CENTRE -> e.costCentre;
            };
        Row row =
            new Row(
                group,
                e.flavor,
                e.resource,
                ReportTranslator.decimal(e.resourceSeconds),
                ReportTranslator.decimal(e.measuredResourceSeconds),
                ReportTranslator.decimal(e.usedResourceSeconds),
                e.runs == null ? 0 : e.runs);
        rows.merge(List.of(group, e.flavor, e.resource), row, Row::plus);
      }
    }
    return new ArrayList<>(rows.values());
  }

  private static YearMonth month(UsageReport report) {
    try {
      return report.getSpec() == null ? null : YearMonth.parse(report.getSpec().month);
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }

  /** RFC 4180 CSV with a header; the first column is named after the grouping. */
  public static String csv(By by, List<Row> rows) {
    StringBuilder out =
        new StringBuilder(
            by.text
                + ",flavor,resource,resource_seconds,"
                + "resource_hours,measured_resource_seconds,used_resource_seconds,used_resource_hours,"
                + "utilization,runs\n");
    for (Row r : rows) {
      out.append(field(r.group()))
          .append(',')
          .append(field(r.flavor()))
          .append(',')
          .append(field(r.resource()))
          .append(',')
          .append(UsageTotals.text(r.resourceSeconds()))
          .append(',')
          .append(ReportTranslator.hours(r.resourceSeconds()))
          .append(',');
      if (r.measured()) {
        out.append(UsageTotals.text(r.measuredResourceSeconds()))
            .append(',')
            .append(UsageTotals.text(r.usedResourceSeconds()))
            .append(',')
            .append(ReportTranslator.hours(r.usedResourceSeconds()))
            .append(',')
            .append(UsageTotals.text(r.utilization()));
      } else {
        out.append(",,,");
      }
      out.append(',').append(r.runs()).append('\n');
    }
    return out.toString();
  }

  /** The same rows as JSON: {"by": ..., "rows": [...]}; absent figures are null. */
  public static String json(By by, List<Row> rows) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Row r : rows) {
      Map<String, Object> row = new java.util.LinkedHashMap<>();
      row.put(by.text, r.group());
      row.put("flavor", r.flavor());
      row.put("resource", r.resource());
      row.put("resourceSeconds", UsageTotals.text(r.resourceSeconds()));
      row.put("resourceHours", ReportTranslator.hours(r.resourceSeconds()));
      row.put(
          "measuredResourceSeconds",
          r.measured() ? UsageTotals.text(r.measuredResourceSeconds()) : null);
      row.put(
          "usedResourceSeconds", r.measured() ? UsageTotals.text(r.usedResourceSeconds()) : null);
      row.put(
          "usedResourceHours",
          r.measured() ? ReportTranslator.hours(r.usedResourceSeconds()) : null);
      row.put("utilization", r.measured() ? UsageTotals.text(r.utilization()) : null);
      row.put("runs", r.runs());
      out.add(row);
    }
    try {
      Map<String, Object> doc = new java.util.LinkedHashMap<>();
      doc.put("by", by.text);
      doc.put("rows", out);
      return new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(doc) + "\n";
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String field(String value) {
    if (value.contains(",") || value.contains("\"") || value.contains("\n")) {
      return "\"" + value.replace("\"", "\"\"") + "\"";
    }
    return value;
  }

  private static int compare(List<String> a, List<String> b) {
    for (int i = 0; i < a.size(); i++) {
      int c = a.get(i).compareTo(b.get(i));
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }
}
