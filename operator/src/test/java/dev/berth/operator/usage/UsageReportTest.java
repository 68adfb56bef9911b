package dev.berth.operator.usage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadSpec;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.api.v1beta1.WorkloadUsage;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class UsageReportTest {
  private static final Instant DEC = Instant.parse("2026-12-01T00:00:00Z");
  private static final Instant JAN = Instant.parse("2027-01-01T00:00:00Z");
  private final List<Workload> workloads = List.of(
      wl("team-a", "train", "cq-a", "cc-1", "2026-12-03T10:00:00Z", "7200"),
      wl("team-a", "serve", "cq-a", "cc-1", "2026-12-31T23:59:59Z", "3600"),
      wl("team-b", "train", "cq-b", null, "2026-12-10T00:00:00Z", "1800"),
      wl("team-b", "train", "cq-b", null, "2026-11-30T23:59:59Z", "99999"),
      wl("team-c", "train", "cq-b", null, "2027-01-01T00:00:00Z", "5"));

  @Test
  void recordsAreSummedPerGroupForTheRunsThatEndedInThePeriod() {
    List<UsageReport.Row> rows =
        UsageReport.of(workloads, UsageReport.By.NAMESPACE, DEC, JAN);

    assertThat(UsageReport.csv(UsageReport.By.NAMESPACE, rows)).isEqualTo("""
        namespace,flavor,resource,resource_seconds,resource_hours,workloads
        team-a,h100,nvidia.com/gpu,10800,3,2
        team-b,h100,nvidia.com/gpu,1800,0.5,1
        """);
  }

  @Test
  void everyGroupingNamesItsGroups() {
    assertThat(UsageReport.of(workloads, UsageReport.By.LOCAL_QUEUE, DEC, JAN))
        .extracting(UsageReport.Row::group).containsExactly("team-a/serve", "team-a/train",
            "team-b/train");
    assertThat(UsageReport.of(workloads, UsageReport.By.CLUSTER_QUEUE, null, null))
        .extracting(UsageReport.Row::group).containsExactly("cq-a", "cq-b");
    assertThat(UsageReport.of(workloads, UsageReport.By.COST_CENTRE, DEC, JAN))
        .extracting(r -> r.group() + "=" + r.resourceSeconds())
        .containsExactly("=1800", "cc-1=10800");
  }

  @Test
  void anUnknownGroupingIsRefusedNamingTheParameter() {
    assertThatThrownBy(() -> UsageReport.By.parse("team"))
        .hasMessage("by: must be one of namespace, localqueue, clusterqueue, cost-centre,"
            + " not \"team\"");
    assertThat(UsageReport.By.parse("cost-centre")).isEqualTo(UsageReport.By.COST_CENTRE);
  }

  private static Workload wl(String ns, String queue, String cq, String costCentre, String ended,
      String gpuSeconds) {
    Workload wl = new Workload();
    wl.getMetadata().setNamespace(ns);
    wl.getMetadata().setName(queue + "-" + ended);
    wl.setSpec(new WorkloadSpec());
    wl.getSpec().queueName = queue;
    wl.setStatus(new WorkloadStatus());
    WorkloadUsage usage = new WorkloadUsage();
    usage.runs = 1;
    usage.lastRunEnd = ended;
    usage.clusterQueue = cq;
    usage.costCentre = costCentre;
    WorkloadUsage.Entry e = new WorkloadUsage.Entry();
    e.podSet = "main";
    e.flavor = "h100";
    e.resource = "nvidia.com/gpu";
    e.requested = "8";
    e.resourceSeconds = gpuSeconds;
    usage.resources = List.of(e);
    wl.getStatus().usage = usage;
    return wl;
  }
}
