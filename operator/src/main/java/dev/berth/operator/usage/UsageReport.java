package dev.berth.operator.usage;

import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadUsage;
import dev.berth.engine.usage.UsageTotals;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Sums the Workloads' durable usage records by namespace, LocalQueue, ClusterQueue or cost
 * centre, per flavor and resource. A workload belongs to the period in which its last counted
 * run ended ({@code status.usage.lastRunEnd} in [from, to)).
 */
public final class UsageReport {
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
              + text + "\"");
    }
  }

  /** One group's use of one resource in one flavor, over {@code workloads} workloads. */
  public record Row(
      String group, String flavor, String resource, BigDecimal resourceSeconds, int workloads) {
    public BigDecimal resourceHours() {
      return resourceSeconds.divide(BigDecimal.valueOf(3600), 6, RoundingMode.HALF_UP);
    }
  }

  private UsageReport() {}

  /** @param from inclusive, or null; @param to exclusive, or null */
  public static List<Row> of(List<Workload> workloads, By by, Instant from, Instant to) {
    Map<List<String>, BigDecimal> sums = new TreeMap<>(UsageReport::compare);
    Map<List<String>, Integer> counts = new TreeMap<>(UsageReport::compare);
    for (Workload wl : workloads) {
      WorkloadUsage usage = wl.getStatus() == null ? null : wl.getStatus().usage;
      if (usage == null || usage.lastRunEnd == null || usage.resources == null) {
        continue;
      }
      Instant ended = Instant.parse(usage.lastRunEnd);
      if ((from != null && ended.isBefore(from)) || (to != null && !ended.isBefore(to))) {
        continue;
      }
      String group = group(wl, usage, by);
      for (WorkloadUsage.Entry e : usage.resources) {
        List<String> key = List.of(group, e.flavor, e.resource);
        sums.merge(key, new BigDecimal(e.resourceSeconds), BigDecimal::add);
        counts.merge(key, 1, Integer::sum);
      }
    }
    List<Row> rows = new ArrayList<>();
    sums.forEach((key, seconds) ->
        rows.add(new Row(key.get(0), key.get(1), key.get(2), seconds, counts.get(key))));
    return rows;
  }

  /** RFC 4180 CSV with a header; the first column is named after the grouping. */
  public static String csv(By by, List<Row> rows) {
    StringBuilder out =
        new StringBuilder(by.text + ",flavor,resource,resource_seconds,resource_hours,workloads\n");
    for (Row r : rows) {
      out.append(field(r.group())).append(',').append(field(r.flavor())).append(',')
          .append(field(r.resource())).append(',').append(UsageTotals.text(r.resourceSeconds()))
          .append(',').append(UsageTotals.text(r.resourceHours())).append(',')
          .append(r.workloads()).append('\n');
    }
    return out.toString();
  }

  private static String group(Workload wl, WorkloadUsage usage, By by) {
    String namespace = wl.getMetadata().getNamespace();
    return switch (by) {
      case NAMESPACE -> namespace;
      case LOCAL_QUEUE -> namespace + "/"
          + (wl.getSpec() == null || wl.getSpec().queueName == null ? "" : wl.getSpec().queueName);
      case CLUSTER_QUEUE -> usage.clusterQueue == null ? "" : usage.clusterQueue;
      case COST_CENTRE -> usage.costCentre == null ? "" : usage.costCentre;
    };
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
