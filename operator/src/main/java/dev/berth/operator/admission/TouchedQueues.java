package dev.berth.operator.admission;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The ClusterQueues and LocalQueues whose status may have changed since the status publisher last
 * looked: those of the Workloads observed, admitted or evicted, and every queue after a change of a
 * queue, a cohort or a flavor (their Active condition and shares). Loop thread only.
 */
public final class TouchedQueues {
  private Set<String> clusterQueues = new LinkedHashSet<>();
  private Set<String> localQueues = new LinkedHashSet<>();
  private boolean all = true;

  /** What was touched since the last call; {@code all} means every queue and cohort. */
  public record Touched(boolean all, Set<String> clusterQueues, Set<String> localQueues) {}

  void clusterQueue(String name) {
    if (name != null) {
      clusterQueues.add(name);
    }
  }

  /** A LocalQueue by its namespace/name key. */
  void localQueue(String key) {
    localQueues.add(key);
  }

  void all() {
    all = true;
  }

  /** Starts over: what was touched so far, handed to the caller. */
  public Touched take() {
    Touched out = new Touched(all, clusterQueues, localQueues);
    clusterQueues = new LinkedHashSet<>();
    localQueues = new LinkedHashSet<>();
    all = false;
    return out;
  }

  /** Puts back what a caller took and could not publish yet (its rate bound held it). */
  public void putBack(Touched touched) {
    all |= touched.all();
    clusterQueues.addAll(touched.clusterQueues());
    localQueues.addAll(touched.localQueues());
  }
}
