package dev.berth.operator.usage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.api.v1beta1.UsageReport;
import dev.berth.api.v1beta1.UsageReportSpec;
import dev.berth.api.v1beta1.UsageReportStatus;
import java.time.YearMonth;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UsageSummaryTest {
  private static final YearMonth DEC = YearMonth.of(2026, 12);
  private static final YearMonth JAN = YearMonth.of(2027, 1);
  private final List<UsageReport> reports =
      List.of(
          report(
              "team-a",
              "2026-12",
              entry("train", "cq-a", "cc-1", "7200", 2, null, null),
              entry("serve", "cq-a", "cc-1", "3600", 1, "3600", "900")),
          report("team-b", "2026-12", entry("train", "cq-b", "", "1800", 1, null, null)),
          report("team-b", "2026-11", entry("train", "cq-b", "", "99999", 9, null, null)),
          report("team-c", "2027-01", entry("train", "cq-b", "", "5", 1, null, null)));

  @Test
  void reportsOfTheMonthsAreSummedPerGroupWithWhatWasUsedWhereMeasured() {
    List<UsageSummary.Row> rows = UsageSummary.of(reports, UsageSummary.By.NAMESPACE, DEC, JAN);

    assertThat(UsageSummary.csv(UsageSummary.By.NAMESPACE, rows))
        .isEqualTo(
            """
        namespace,flavor,resource,resource_seconds,resource_hours,measured_resource_seconds,\
        used_resource_seconds,used_resource_hours,utilization,runs
        team-a,h100,nvidia.com/gpu,10800,3,3600,900,0.25,0.25,3
        team-b,h100,nvidia.com/gpu,1800,0.5,,,,,1
        """);
    assertThat(UsageSummary.json(UsageSummary.By.NAMESPACE, rows))
        .isEqualTo(
            "{\"by\":\"namespace\",\"rows\":[{\"namespace\":\"team-a\",\"flavor\":\"h100\","
                + "\"resource\":\"nvidia.com/gpu\",\"resourceSeconds\":\"10800\","
                + "\"resourceHours\":\"3\",\"measuredResourceSeconds\":\"3600\","
                + "\"usedResourceSeconds\":\"900\",\"usedResourceHours\":\"0.25\","
                + "\"utilization\":\"0.25\",\"runs\":3},{\"namespace\":\"team-b\","
                + "\"flavor\":\"h100\",\"resource\":\"nvidia.com/gpu\",\"resourceSeconds\":\"1800\","
                + "\"resourceHours\":\"0.5\",\"measuredResourceSeconds\":null,"
                + "\"usedResourceSeconds\":null,\"usedResourceHours\":null,\"utilization\":null,"
                + "\"runs\":1}]}\n");
  }

  @Test
  void everyGroupingNamesItsGroups() {
    assertThat(UsageSummary.of(reports, UsageSummary.By.LOCAL_QUEUE, DEC, JAN))
        .extracting(UsageSummary.Row::group)
        .containsExactly("team-a/serve", "team-a/train", "team-b/train");
    assertThat(UsageSummary.of(reports, UsageSummary.By.CLUSTER_QUEUE, null, null))
        .extracting(r -> r.group() + "=" + r.runs())
        .containsExactly("cq-a=3", "cq-b=11");
    assertThat(UsageSummary.of(reports, UsageSummary.By.COST_CENTRE, DEC, JAN))
        .extracting(r -> r.group() + "=" + r.resourceSeconds())
        .containsExactly("=1800", "cc-1=10800");
  }

  @Test
  void aRunIsBilledToTheMonthItEndedInUtc() {
    long dec1 = java.time.Instant.parse("2026-12-01T00:00:00Z").toEpochMilli();
    assertThat(ReportTranslator.monthOf(dec1 - 1)).isEqualTo("2026-11");
    assertThat(ReportTranslator.monthOf(dec1)).isEqualTo("2026-12");
  }

  @Test
  void badParametersAreRefusedNamingTheParameter() {
    assertThatThrownBy(() -> UsageSummary.By.parse("team"))
        .hasMessage(
            "by: must be one of namespace, localqueue, clusterqueue, cost-centre,"
                + " not \"team\"");
    assertThat(UsageEndpoint.month(Map.of("from", "2026-11"), "from"))
        .isEqualTo(YearMonth.of(2026, 11));
    assertThat(UsageEndpoint.month(Map.of("to", "2026-12-01T00:00:00Z"), "to")).isEqualTo(DEC);
    assertThatThrownBy(() -> UsageEndpoint.month(Map.of("to", "2026-12-15T00:00:00Z"), "to"))
        .hasMessageStartingWith("to: reports are monthly; give a month such as 2026-12");
    assertThatThrownBy(() -> UsageEndpoint.month(Map.of("from", "yesterday"), "from"))
        .hasMessageStartingWith("from: not a month such as 2026-12");
  }

  private static UsageReport report(String ns, String month, UsageReportStatus.Entry... entries) {
    UsageReport r = new UsageReport();
    r.getMetadata().setNamespace(ns);
    r.getMetadata().setName(UsageReport.nameFor(month));
    r.setSpec(new UsageReportSpec());
    r.getSpec().month = month;
    r.setStatus(new UsageReportStatus());
    r.getStatus().entries = List.of(entries);
    return r;
  }

  private static UsageReportStatus.Entry entry(
      String lq,
      String cq,
      String costCentre,
      String seconds,
      int runs,
      String measured,
      String used) {
    UsageReportStatus.Entry e = new UsageReportStatus.Entry();
    e.localQueue = lq;
    e.clusterQueue = cq;
    e.costCentre = costCentre;
    e.flavor = "h100";
    e.resource = "nvidia.com/gpu";
    e.resourceSeconds = seconds;
    e.runs = runs;
    e.measuredResourceSeconds = measured;
    e.usedResourceSeconds = used;
    return e;
  }
}
