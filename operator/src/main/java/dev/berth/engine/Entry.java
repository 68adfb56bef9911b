package dev.berth.engine;

import dev.berth.engine.flavor.Assignment;
import dev.berth.engine.queue.Bucket;
import dev.berth.engine.queue.PendingWorkload;

/**
 * A nominated head: a pending workload with its flavor assignment on the quota state of version
 * {@link #version}. Orderings and preemption planners read it; only the cycle changes it.
 */
public final class Entry {
  final ClusterQueueState queue;
  final Bucket bucket;
  final PendingWorkload workload;
  Assignment assignment;
  long version;

  Entry(ClusterQueueState queue, Bucket bucket, Assignment assignment, long version) {
    this.queue = queue;
    this.bucket = bucket;
    this.workload = bucket.front();
    this.assignment = assignment;
    this.version = version;
  }

  public String clusterQueue() {
    return queue.name;
  }

  public String workloadUid() {
    return workload.uid();
  }

  public int priority() {
    return bucket.priority();
  }

  public long queueTimestamp() {
    return workload.queueTimestamp();
  }

  public Assignment assignment() {
    return assignment;
  }

  public boolean borrows() {
    return assignment.borrows();
  }
}
