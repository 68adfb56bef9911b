package dev.berth.operator.admission;

import dev.berth.operator.config.Configuration;

/**
 * How the admission loop's writers talk to the API server (configuration {@code clientConnection},
 * chart values {@code writers.*}): how many writes can be on the wire at once, how many may wait,
 * the client-side rate bound over them, and the share of it pending workloads' status may take.
 *
 * @param threads clientConnection.writers: writer threads, so writes on the wire at once (default
 *     8)
 * @param queue clientConnection.queue: writes in flight or waiting, at most (default 20000); a
 *     decision beyond it is rolled back and decided again once there is room
 * @param qps clientConnection.qps: requests a second once the burst is spent (default 100)
 * @param burst clientConnection.burst: requests sent at once before the rate applies (default 200)
 * @param pendingQps clientConnection.pendingWorkloadQps: pending workloads' QuotaReserved=False
 *     writes a second, all workloads together (default 5); the reasons that wait longest go first
 * @param queueStatusQps clientConnection.queueStatusQps: ClusterQueue, LocalQueue and Cohort status
 *     writes a second, all queues together (default 10); a changed Active condition goes first,
 *     then the status written longest ago
 */
public record WriterSettings(
    int threads, int queue, double qps, int burst, double pendingQps, double queueStatusQps) {
  public static final WriterSettings DEFAULT = new WriterSettings(8, 20_000, 100, 200, 5, 10);

  /** The defaults' queue status budget (tests that set the rest). */
  public WriterSettings(int threads, int queue, double qps, int burst, double pendingQps) {
    this(threads, queue, qps, burst, pendingQps, 10);
  }

  public WriterSettings {
    if (threads < 1 || threads > 256) {
      throw new IllegalArgumentException(
          "clientConnection.writers must be 1 to 256, got " + threads);
    }
    if (queue < threads) {
      throw new IllegalArgumentException(
          "clientConnection.queue must be at least clientConnection.writers ("
              + threads
              + "), got "
              + queue);
    }
    if (!(qps > 0) || Double.isInfinite(qps)) {
      throw new IllegalArgumentException("clientConnection.qps must be more than 0, got " + qps);
    }
    if (burst < 1) {
      throw new IllegalArgumentException("clientConnection.burst must be at least 1, got " + burst);
    }
    if (!(pendingQps > 0) || pendingQps > qps) {
      throw new IllegalArgumentException(
          "clientConnection.pendingWorkloadQps must be more than 0 and at most clientConnection.qps ("
              + qps
              + "), got "
              + pendingQps);
    }
    if (!(queueStatusQps > 0) || queueStatusQps > qps) {
      throw new IllegalArgumentException(
          "clientConnection.queueStatusQps must be more than 0 and at most clientConnection.qps ("
              + qps
              + "), got "
              + queueStatusQps);
    }
  }

  /** The configuration's {@code clientConnection} writers and rates. */
  public static WriterSettings of(Configuration.ClientConnection c) {
    return new WriterSettings(
        c.writers(), c.queue(), c.qps(), c.burst(), c.pendingWorkloadQps(), c.queueStatusQps());
  }
}
