package dev.berth.operator.usage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.UsageReport;
import dev.berth.api.v1beta1.UsageReportStatus;
import java.util.ArrayList;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What a UsageReport read back after a status write of unknown outcome must show to be taken as
 * written: every run the write added, each with the start it was counted with.
 */
class ReportWriterReadBackTest {

  private static UsageReport report(String... uidsAndStarts) {
    UsageReport report = new UsageReport();
    report.setStatus(new UsageReportStatus());
    report.getStatus().counted = new ArrayList<>();
    for (int i = 0; i < uidsAndStarts.length; i += 2) {
      UsageReportStatus.CountedRun run = new UsageReportStatus.CountedRun();
      run.uid = uidsAndStarts[i];
      run.workload = "team/" + run.uid;
      run.runStart = uidsAndStarts[i + 1];
      report.getStatus().counted.add(run);
    }
    return report;
  }

  private static final String T1 = "2025-12-01T00:00:00.000Z";
  private static final String T2 = "2025-12-01T00:30:00.000Z";

  private final UsageReport written = report("old", T1, "a", T1, "b", T2);

  @Test
  void aReportCountingEveryRunAddedShowsTheWrite() {
    assertThat(ReportWriter.counts(report("old", T1, "a", T1, "b", T2), written, Set.of("a", "b")))
        .isTrue();
    assertThat(
            ReportWriter.counts(report("b", T2, "a", T1, "other", T2), written, Set.of("a", "b")))
        .as("in another order, with runs written since")
        .isTrue();
  }

  @Test
  void aReportMissingARunAddedDoesNotShowTheWrite() {
    assertThat(ReportWriter.counts(report("old", T1, "a", T1), written, Set.of("a", "b")))
        .isFalse();
    assertThat(ReportWriter.counts(report(), written, Set.of("a"))).isFalse();
    UsageReport noStatus = new UsageReport();
    assertThat(ReportWriter.counts(noStatus, written, Set.of("a"))).isFalse();
  }

  @Test
  void anEarlierRunOfTheSameWorkloadIsNotTheRunAdded() {
    assertThat(ReportWriter.counts(report("a", T1, "b", T1), written, Set.of("a", "b")))
        .as("b counted with an earlier start: its earlier run, not this one")
        .isFalse();
  }
}
