package dev.berth.api.v1beta1;

import dev.berth.api.crd.PrinterColumns;
import dev.berth.api.crd.PrinterColumns.Column;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * One namespace's usage in one calendar month (UTC), named {@code usage-YYYY-MM}: every run that
 * ended in the month, summed per LocalQueue, ClusterQueue, cost centre, flavor and resource.
 * Written only by the operator; it outlives the Workloads and Jobs it counts.
 */
@Group(Berth.GROUP)
@Version(Berth.VERSION)
@Plural("usagereports")
@ShortNames({"ur", "usage"})
@PrinterColumns({
  @Column(name = "Month", jsonPath = ".spec.month"),
  @Column(name = "Runs", type = "integer", jsonPath = ".status.runs"),
  @Column(name = "GPU-Hours", jsonPath = ".status.gpuHours"),
  @Column(name = "GPU-Hours-Used", jsonPath = ".status.gpuHoursUsed"),
  @Column(name = "Updated", type = "date", jsonPath = ".status.lastUpdateTime"),
  @Column(name = "Age", type = "date", jsonPath = ".metadata.creationTimestamp")
})
public class UsageReport extends CustomResource<UsageReportSpec, UsageReportStatus>
    implements Namespaced {
  /** The report's name for a month ("2026-12"): usage-2026-12. */
  public static String nameFor(String month) {
    return "usage-" + month;
  }
}
