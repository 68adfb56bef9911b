package dev.berth.engine;

import dev.berth.engine.flavor.Assignment;
import dev.berth.engine.queue.Bucket;
import dev.berth.engine.queue.PendingWorkload;
import dev.berth.engine.quota.FlavorResources;

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

  /** A preemptor whose victims are gone: it is applied before every other entry. */
  boolean reserved;

  /** Set by the cycle, for fair sharing. */
  FlavorResources frs;

  private Assignment shareFor;
  private long share;

  Entry(
      ClusterQueueState queue,
      Bucket bucket,
      PendingWorkload workload,
      Assignment assignment,
      long version) {
    this.queue = queue;
    this.bucket = bucket;
    this.workload = workload;
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

  /**
   * The weighted dominant-resource share its ClusterQueue would have after admitting it (see {@link
   * FairSharingOrdering}); 0 outside a cohort.
   */
  public long shareAfterAdmission() {
    // Only this entry's own queue's usage moves its share, and that queue admits nothing while the
    // entry waits in line, so the share is computed once per assignment.
    if (shareFor != assignment) {
      share =
          frs == null || assignment.frs() == null
              ? 0
              : DominantResourceShare.of(queue, frs, assignment.frs(), assignment.usage());
      shareFor = assignment;
    }
    return share;
  }
}
