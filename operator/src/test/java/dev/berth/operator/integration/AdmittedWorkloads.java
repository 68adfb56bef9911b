package dev.berth.operator.integration;

import dev.berth.api.v1beta1.Admission;
import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadSpec;
import dev.berth.api.v1beta1.WorkloadStatus;
import java.util.List;
import java.util.Map;

/** Workloads as admitted, for the tests of what an integration writes into a started object. */
public final class AdmittedWorkloads {
  private AdmittedWorkloads() {}

  /** The Workload of {@code podSets} as admitted: every podSet's GPUs on flavor {@code flavor}. */
  public static Workload onFlavor(List<PodSet> podSets, String flavor) {
    Admission admission = new Admission();
    admission.clusterQueue = "cq";
    admission.podSetAssignments =
        podSets.stream()
            .map(
                ps -> {
                  PodSetAssignment a = new PodSetAssignment();
                  a.name = ps.name;
                  a.count = ps.count;
                  a.flavors = Map.of("nvidia.com/gpu", flavor);
                  return a;
                })
            .toList();
    Workload wl = new Workload();
    wl.getMetadata().setUid("wl-uid");
    wl.setSpec(new WorkloadSpec());
    wl.getSpec().podSets = podSets;
    wl.setStatus(new WorkloadStatus());
    wl.getStatus().admission = admission;
    return wl;
  }
}
