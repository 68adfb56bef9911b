package dev.berth.engine;

import dev.berth.engine.model.Explanation;
import dev.berth.engine.model.PendingReason;
import java.util.Objects;

/**
 * Why a workload is pending: the reason of its QuotaReserved=False condition, the whole explanation
 * ({@code message}, for an Event) and its one-line form under 200 characters ({@code summary}, for
 * the condition and the wide columns). {@code clusterQueue} is null while its LocalQueue does not
 * exist.
 *
 * <p>The message and summary are formatted when first read, not when the status is made: a sweep
 * over tens of thousands of pending workloads reads the reason of each but writes a handful, so
 * building every string up front was most of that sweep (issue 20, the large-scale load). The
 * explanation holds numbers and names as they were decided, never engine state, so reading it later
 * gives the same text. Workloads of one bucket share one explanation and its strings.
 */
public final class PendingStatus {
  private final String workloadUid;
  private final String clusterQueue;
  private final Explanation why;

  PendingStatus(String workloadUid, String clusterQueue, Explanation why) {
    this.workloadUid = workloadUid;
    this.clusterQueue = clusterQueue;
    this.why = why;
  }

  public String workloadUid() {
    return workloadUid;
  }

  public String clusterQueue() {
    return clusterQueue;
  }

  public PendingReason reason() {
    return why.reason();
  }

  public String message() {
    return why.message();
  }

  public String summary() {
    return why.summary();
  }

  /** Equal when every field reads the same, text included (formats both). */
  @Override
  public boolean equals(Object o) {
    return o instanceof PendingStatus s
        && workloadUid.equals(s.workloadUid)
        && Objects.equals(clusterQueue, s.clusterQueue)
        && reason() == s.reason()
        && message().equals(s.message())
        && summary().equals(s.summary());
  }

  @Override
  public int hashCode() {
    return Objects.hash(workloadUid, clusterQueue, reason(), message());
  }

  @Override
  public String toString() {
    return "PendingStatus[" + workloadUid + ", " + clusterQueue + ", " + why + "]";
  }
}
