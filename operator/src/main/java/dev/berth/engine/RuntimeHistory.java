package dev.berth.engine;

import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * How long workloads of each ClusterQueue ran, learned from finished ones (the last {@link #KEEP}
 * per ClusterQueue by finish time): what the start-time replay assumes for a workload without a
 * maximum execution time.
 */
final class RuntimeHistory {
  static final int KEEP = 50;

  private record Run(long finishedAt, String uid, long millis) {}

  /**
   * Finish time, then UID: a repeated report of a run replaces it. (A key formatted as a string was
   * 2 % of the operator's CPU on issue 20's baseline: one per finished workload.)
   */
  private static final Comparator<Run> ORDER =
      Comparator.comparingLong(Run::finishedAt).thenComparing(Run::uid);

  /** Per ClusterQueue: runs by (finish time, UID), so a repeated report is counted once. */
  private final Map<String, TreeMap<Run, Run>> byQueue = new HashMap<>();

  void record(String clusterQueue, String uid, long finishedAt, long millis) {
    if (millis < 0) {
      return;
    }
    TreeMap<Run, Run> runs = byQueue.computeIfAbsent(clusterQueue, k -> new TreeMap<>(ORDER));
    Run run = new Run(finishedAt, uid, millis);
    runs.put(run, run); // a run already there (same finish, same UID) takes the latest runtime
    while (runs.size() > KEEP) {
      runs.pollFirstEntry();
    }
  }

  int count(String clusterQueue) {
    TreeMap<Run, Run> runs = byQueue.get(clusterQueue);
    return runs == null ? 0 : runs.size();
  }

  /**
   * The median runtime of the finished workloads of a ClusterQueue that ran longer than {@code
   * atLeast} (0 for all): a workload already running for a while is expected to run as long as
   * those that outlasted that age. Null when none did.
   */
  Long median(String clusterQueue, long atLeast) {
    TreeMap<Run, Run> runs = byQueue.get(clusterQueue);
    if (runs == null) {
      return null;
    }
    long[] longer =
        runs.values().stream().mapToLong(Run::millis).filter(m -> m > atLeast).toArray();
    if (longer.length == 0) {
      return null;
    }
    Arrays.sort(longer);
    int mid = longer.length / 2;
    return longer.length % 2 == 1 ? longer[mid] : (longer[mid - 1] + longer[mid]) / 2;
  }
}
