package dev.berth.operator.admission;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Cohort;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.Admission;
import dev.berth.engine.StartEstimate;
import dev.berth.engine.StatusView;
import dev.berth.engine.topology.NodeInventory;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the publishers and the visibility API read of the loop's {@link ClusterState}: the latest
 * API object of each kind and the engine's figures, and nothing that changes them. Read on the loop
 * thread (a cycle's listener, or a function the loop runs); what a publisher writes comes back to
 * the state as an observation.
 */
public interface ClusterView {
  /** The engine's queues, quota and pending workloads, as the last cycle left them. */
  StatusView engineStatus();

  /** The engine's admission of a workload: decided (perhaps not yet written) or recorded. */
  Optional<Admission> admission(String uid);

  /** Workloads whose admission the engine holds (admitted, being written, or evicting). */
  List<String> quotaHolderUids();

  /** Per Topology, the nodes and what is free on them. */
  Map<String, NodeInventory> topologyInventories();

  Optional<Workload> latestWorkload(String uid);

  /** The phase the latest version of a Workload was read into (see {@link PhaseClassifier}). */
  Optional<WorkloadPhase> phase(String uid);

  Optional<ClusterQueue> latestClusterQueue(String name);

  Optional<Cohort> latestCohort(String name);

  /** A LocalQueue by its namespace/name key. */
  Optional<LocalQueue> latestLocalQueue(String key);

  Optional<ResourceFlavor> latestFlavor(String name);

  Collection<ClusterQueue> clusterQueues();

  Collection<LocalQueue> localQueues();

  Collection<Cohort> cohorts();

  Collection<ResourceFlavor> flavors();

  /** Quota-reserved workloads whose admission checks have not all said Ready. */
  Set<String> awaitingChecks();

  /**
   * Replays the admission cycles from {@code now} on a copy of the engine, over the admitted
   * workloads' expected ends and maximum execution times, for each pending workload's estimated
   * start; the engine itself is left as it was (it keeps the answer for {@link #engineStatus}).
   */
  Map<String, StartEstimate> estimateStarts(long now);
}
