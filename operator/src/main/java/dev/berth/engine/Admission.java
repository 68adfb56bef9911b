package dev.berth.engine;

import java.util.List;

/** A decision to reserve quota for a workload in a ClusterQueue; what status.admission records. */
public record Admission(
    String workloadUid,
    String namespace,
    String name,
    String clusterQueue,
    String localQueue,
    List<PodSetAssignment> podSetAssignments,
    long admittedAt) {
  public Admission {
    podSetAssignments = List.copyOf(podSetAssignments);
  }

  public boolean borrows() {
    return podSetAssignments.stream().anyMatch(PodSetAssignment::borrows);
  }
}
