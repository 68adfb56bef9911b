package dev.berth.api.v1beta1;

import dev.berth.api.crd.PrinterColumns;
import dev.berth.api.crd.PrinterColumns.Column;
import dev.berth.api.crd.Rule;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** The unit of admission: pod sets that are admitted together, or not at all. */
@Group(Berth.GROUP)
@Version(Berth.VERSION)
@Plural("workloads")
@ShortNames({"wl"})
@PrinterColumns({
  @Column(name = "Queue", jsonPath = ".spec.queueName"),
  @Column(name = "Reserved in", jsonPath = ".status.admission.clusterQueue"),
  @Column(name = "Admitted", jsonPath = ".status.conditions[?(@.type==\"Admitted\")].status"),
  @Column(name = "Checks", jsonPath = ".status.admissionChecks[*].state"),
  @Column(name = "Finished", jsonPath = ".status.conditions[?(@.type==\"Finished\")].status"),
  @Column(
      name = "Reason",
      jsonPath = ".status.conditions[?(@.type==\"QuotaReserved\")].reason",
      priority = 1),
  @Column(
      name = "Message",
      jsonPath = ".status.conditions[?(@.type==\"QuotaReserved\")].message",
      priority = 1),
  @Column(name = "Check-Names", jsonPath = ".status.admissionChecks[*].name", priority = 1),
  @Column(name = "Age", type = "date", jsonPath = ".metadata.creationTimestamp")
})
// The pod templates are compared by the validating webhook: comparing whole templates in CEL
// exceeds the API server's cost budget for a schema this large.
@Rule(
    value =
        "!(has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) || (self.spec.podSets.map(p, p.name) == oldSelf.spec.podSets.map(p, p.name) && self.spec.podSets.map(p, p.count) == oldSelf.spec.podSets.map(p, p.count) && has(self.spec.queueName) == has(oldSelf.spec.queueName) && (!has(self.spec.queueName) || self.spec.queueName == oldSelf.spec.queueName) && has(self.spec.priority) == has(oldSelf.spec.priority) && (!has(self.spec.priority) || self.spec.priority == oldSelf.spec.priority))",
    message = "queueName, priority and podSets are immutable while quota is reserved")
public class Workload extends CustomResource<WorkloadSpec, WorkloadStatus> implements Namespaced {}
