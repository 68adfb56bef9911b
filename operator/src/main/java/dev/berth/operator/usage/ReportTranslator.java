package dev.berth.operator.usage;

import dev.berth.api.v1beta1.UsageReportStatus;
import dev.berth.engine.usage.MonthlyUsage;
import dev.berth.engine.usage.UsageTotals;
import dev.berth.operator.Timestamps;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;

/** A UsageReport's status as the monthly usage it holds, and back. */
public final class ReportTranslator {
  static final String GPU = "nvidia.com/gpu";

  private ReportTranslator() {}

  /** The month a run is billed to: the one it ended in, UTC, as "2026-12". */
  public static String monthOf(long epochMillis) {
    return java.time.YearMonth.from(
            Instant.ofEpochMilli(epochMillis).atOffset(java.time.ZoneOffset.UTC))
        .toString();
  }

  public static MonthlyUsage usage(UsageReportStatus status) {
    if (status == null) {
      return MonthlyUsage.none();
    }
    Map<MonthlyUsage.Key, MonthlyUsage.Sums> entries = new LinkedHashMap<>();
    if (status.entries != null) {
      for (UsageReportStatus.Entry e : status.entries) {
        entries.put(
            new MonthlyUsage.Key(e.localQueue, e.clusterQueue, e.costCentre, e.flavor, e.resource),
            new MonthlyUsage.Sums(
                e.runs == null ? 0 : e.runs,
                decimal(e.resourceSeconds),
                decimal(e.measuredResourceSeconds),
                decimal(e.usedResourceSeconds)));
      }
    }
    Map<String, MonthlyUsage.Counted> counted = new LinkedHashMap<>();
    if (status.counted != null) {
      for (UsageReportStatus.CountedRun c : status.counted) {
        counted.put(c.uid, new MonthlyUsage.Counted(c.workload, Timestamps.millis(c.runStart)));
      }
    }
    return new MonthlyUsage(status.runs == null ? 0 : status.runs, entries, counted);
  }

  public static UsageReportStatus status(MonthlyUsage usage, Instant now) {
    UsageReportStatus out = new UsageReportStatus();
    out.runs = usage.runs();
    out.gpuHours = hours(usage.total(GPU, false));
    out.gpuHoursUsed = usage.measured(GPU) ? hours(usage.total(GPU, true)) : null;
    out.lastUpdateTime = now.toString();
    out.entries = new ArrayList<>();
    usage
        .entries()
        .forEach(
            (k, sums) -> {
              UsageReportStatus.Entry e = new UsageReportStatus.Entry();
              e.localQueue = k.localQueue();
              e.clusterQueue = k.clusterQueue();
              e.costCentre = k.costCentre();
              e.flavor = k.flavor();
              e.resource = k.resource();
              e.runs = sums.runs();
              e.resourceSeconds = UsageTotals.text(sums.resourceSeconds());
              if (sums.measuredResourceSeconds().signum() > 0) {
                e.measuredResourceSeconds = UsageTotals.text(sums.measuredResourceSeconds());
                e.usedResourceSeconds = UsageTotals.text(sums.usedResourceSeconds());
              }
              out.entries.add(e);
            });
    out.counted = new ArrayList<>();
    usage
        .counted()
        .forEach(
            (uid, c) -> {
              UsageReportStatus.CountedRun r = new UsageReportStatus.CountedRun();
              r.uid = uid;
              r.workload = c.workload();
              r.runStart = Instant.ofEpochMilli(c.runStart()).toString();
              out.counted.add(r);
            });
    return out;
  }

  /** Seconds as hours, six decimals ("18.668267"). */
  public static String hours(BigDecimal seconds) {
    return UsageTotals.text(seconds.divide(BigDecimal.valueOf(3600), 6, RoundingMode.HALF_UP));
  }

  static BigDecimal decimal(String text) {
    return text == null || text.isEmpty() ? BigDecimal.ZERO : new BigDecimal(text);
  }
}
