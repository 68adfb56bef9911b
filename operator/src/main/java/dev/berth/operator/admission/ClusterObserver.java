package dev.berth.operator.admission;

import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;

/**
 * A side ledger fed by the loop's observations: usage, node capacity, execution deadlines, the wait
 * for ready pods, admission checks. Registered with {@link ClusterState} at start-up and called on
 * the loop thread, after the loop keeps each version and before the engine is fed; a Workload comes
 * with the {@link WorkloadPhase} the loop read it into, so no observer reads its conditions again.
 * Each kind of event has a default that ignores it.
 */
public interface ClusterObserver {
  /** A Workload version newer than the one held, and its phase. */
  default void workload(Workload wl, WorkloadPhase phase) {}

  /**
   * A Workload is gone.
   *
   * @param last the version held, or null when none was
   */
  default void workloadDeleted(String uid, Workload last) {}

  default void node(Node node) {}

  default void nodeDeleted(String name) {}

  /** A pod as stored now. */
  default void pod(Pod pod) {}

  default void podDeleted(String uid) {}

  /** A namespace's labels as stored now (null when it has none). */
  default void namespace(String name, Map<String, String> labels) {}

  default void namespaceDeleted(String name) {}
}
