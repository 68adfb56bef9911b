package dev.berth.engine.queue;

/**
 * A workload waiting in a ClusterQueue. Its priority, LocalQueue and podSets live in its {@link
 * Bucket}, shared with every workload of the same shape, which keeps the engine's heap per pending
 * workload small.
 */
public final class PendingWorkload {
  final String uid;
  final String name;
  final long queueTimestamp;
  Bucket bucket;

  public PendingWorkload(String uid, String name, long queueTimestamp) {
    this.uid = uid;
    this.name = name;
    this.queueTimestamp = queueTimestamp;
  }

  public String uid() {
    return uid;
  }

  public String name() {
    return name;
  }

  public long queueTimestamp() {
    return queueTimestamp;
  }

  public Bucket bucket() {
    return bucket;
  }

  public int priority() {
    return bucket.priority;
  }

  /** Queue order inside a ClusterQueue: priority (high first), then timestamp, then UID. */
  public static int compare(PendingWorkload a, PendingWorkload b) {
    int c = Integer.compare(b.bucket.priority, a.bucket.priority);
    if (c != 0) {
      return c;
    }
    return fifo(a, b);
  }

  static int fifo(PendingWorkload a, PendingWorkload b) {
    int c = Long.compare(a.queueTimestamp, b.queueTimestamp);
    return c != 0 ? c : a.uid.compareTo(b.uid);
  }
}
