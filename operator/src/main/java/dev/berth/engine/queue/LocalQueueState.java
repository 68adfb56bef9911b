package dev.berth.engine.queue;

import dev.berth.engine.model.Explanation;
import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.Workload;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * A LocalQueue as the engine tracks it: its spec (null while unknown), its buckets in the
 * ClusterQueue, workloads waiting for the LocalQueue (or its ClusterQueue) to exist, and counts.
 */
public final class LocalQueueState {
  private final String key;
  private final String namespace;
  private final String name;
  private LocalQueue spec;

  /** Workloads that cannot be routed to a ClusterQueue yet. */
  final Map<String, Workload> unrouted = new LinkedHashMap<>();

  final Set<Bucket> buckets = new LinkedHashSet<>();

  /** Why its buckets are held (LocalQueue stopped, namespace mismatch), or null. */
  Explanation held;

  /**
   * Its spent budget's message while its workloads may run only on idle capacity, or null. Its
   * buckets then go after every other bucket of the ClusterQueue; changed only through {@link
   * PendingQueue#idleCapacityOnly}.
   */
  String idleCapacityOnly;

  int pendingActive;
  int pendingInadmissible;
  int admitted;

  /** Decayed recent usage in base units as of the last sample (admission fair sharing). */
  private Map<String, BigDecimal> consumed = Map.of();

  /** When {@link #consumed} was sampled (epoch millis); Long.MIN_VALUE: never. */
  private long consumedAt = Long.MIN_VALUE;

  /** Entry penalties of the admissions since that sample. */
  private Map<String, BigDecimal> penalty = Map.of();

  /**
   * consumed plus penalty, weighted, over the LocalQueue's weight: its place among the LocalQueues
   * of a ClusterQueue that orders by usage. Changed only through {@link
   * PendingQueue#rescore(LocalQueueState, double)}, which keeps the sorted buckets sorted.
   */
  double score;

  public LocalQueueState(String namespace, String name) {
    this.key = namespace + "/" + name;
    this.namespace = namespace;
    this.name = name;
  }

  public String name() {
    return name;
  }

  public String key() {
    return key;
  }

  public String namespace() {
    return namespace;
  }

  public LocalQueue spec() {
    return spec;
  }

  public void spec(LocalQueue spec) {
    this.spec = spec;
  }

  public Map<String, Workload> unrouted() {
    return unrouted;
  }

  public Set<Bucket> buckets() {
    return buckets;
  }

  public Explanation held() {
    return held;
  }

  /** The spent budget's message while it may run only on idle capacity, or null. */
  public String idleCapacityOnly() {
    return idleCapacityOnly;
  }

  public int pendingActive() {
    return pendingActive;
  }

  /** Pending but not competing: parked, held, or waiting for the queue to exist. */
  public int pendingInadmissible() {
    return pendingInadmissible + unrouted.size();
  }

  public int admitted() {
    return admitted;
  }

  public void admittedDelta(int delta) {
    admitted += delta;
  }

  public Map<String, BigDecimal> consumed() {
    return consumed;
  }

  public long consumedAt() {
    return consumedAt;
  }

  public Map<String, BigDecimal> penalty() {
    return penalty;
  }

  public double score() {
    return score;
  }

  /** Sets the decayed usage (a sample, or the stored status at start-up); the score is apart. */
  public void consumed(Map<String, BigDecimal> usage, long at) {
    this.consumed = Map.copyOf(usage);
    this.consumedAt = at;
  }

  public void penalty(Map<String, BigDecimal> penalty) {
    this.penalty = Map.copyOf(penalty);
  }
}
