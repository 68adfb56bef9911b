package dev.berth.api.v1beta1;

import dev.berth.api.crd.PrinterColumns;
import dev.berth.api.crd.PrinterColumns.Column;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * Resource-hours a LocalQueue, a ClusterQueue or a cost centre may reserve per calendar window (a
 * day, an ISO week or a month in a named time zone), charged from the usage ledger as workloads
 * hold quota. Once spent, new workloads of the budget wait (BudgetExhausted) until the next window;
 * running ones are never stopped by it. Cluster-scoped: a platform admin's object, like a
 * ClusterQueue, and a cost centre spans namespaces. See docs/budgets.md.
 */
@Group(Berth.GROUP)
@Version(Berth.VERSION)
@Plural("budgets")
@ShortNames("bgt")
@PrinterColumns({
  @Column(name = "Period", jsonPath = ".spec.period"),
  @Column(name = "Window", jsonPath = ".status.window"),
  @Column(name = "Exhausted", type = "boolean", jsonPath = ".status.exhausted"),
  @Column(name = "Resets", type = "date", jsonPath = ".status.resetsAt"),
  @Column(name = "Age", type = "date", jsonPath = ".metadata.creationTimestamp")
})
public class Budget extends CustomResource<BudgetSpec, BudgetStatus> {}
