package dev.berth.operator.admission;

import java.util.Map;

/**
 * How the admission loop's writers talk to the API server (chart values {@code writers.*}): how
 * many writes can be on the wire at once, how many may wait, the client-side rate bound over them,
 * and the share of it pending workloads' status may take.
 *
 * @param threads BERTH_WRITERS: writer threads, so writes on the wire at once (default 8)
 * @param queue BERTH_WRITE_QUEUE: writes in flight or waiting, at most (default 20000); a decision
 *     beyond it is rolled back and decided again once there is room
 * @param qps BERTH_WRITE_QPS: requests a second once the burst is spent (default 100)
 * @param burst BERTH_WRITE_BURST: requests sent at once before the rate applies (default 200)
 * @param pendingQps BERTH_PENDING_WRITE_QPS: pending workloads' QuotaReserved=False writes a
 *     second, all workloads together (default 5); the reasons that wait longest go first
 * @param queueStatusQps BERTH_QUEUE_STATUS_WRITE_QPS: ClusterQueue, LocalQueue and Cohort status
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
      throw new IllegalArgumentException("BERTH_WRITERS must be 1 to 256, got " + threads);
    }
    if (queue < threads) {
      throw new IllegalArgumentException(
          "BERTH_WRITE_QUEUE must be at least BERTH_WRITERS (" + threads + "), got " + queue);
    }
    if (!(qps > 0) || Double.isInfinite(qps)) {
      throw new IllegalArgumentException("BERTH_WRITE_QPS must be more than 0, got " + qps);
    }
    if (burst < 1) {
      throw new IllegalArgumentException("BERTH_WRITE_BURST must be at least 1, got " + burst);
    }
    if (!(pendingQps > 0) || pendingQps > qps) {
      throw new IllegalArgumentException(
          "BERTH_PENDING_WRITE_QPS must be more than 0 and at most BERTH_WRITE_QPS ("
              + qps
              + "), got "
              + pendingQps);
    }
    if (!(queueStatusQps > 0) || queueStatusQps > qps) {
      throw new IllegalArgumentException(
          "BERTH_QUEUE_STATUS_WRITE_QPS must be more than 0 and at most BERTH_WRITE_QPS ("
              + qps
              + "), got "
              + queueStatusQps);
    }
  }

  public static WriterSettings from(Map<String, String> env) {
    return new WriterSettings(
        integer(env, "BERTH_WRITERS", DEFAULT.threads()),
        integer(env, "BERTH_WRITE_QUEUE", DEFAULT.queue()),
        number(env, "BERTH_WRITE_QPS", DEFAULT.qps()),
        integer(env, "BERTH_WRITE_BURST", DEFAULT.burst()),
        number(env, "BERTH_PENDING_WRITE_QPS", DEFAULT.pendingQps()),
        number(env, "BERTH_QUEUE_STATUS_WRITE_QPS", DEFAULT.queueStatusQps()));
  }

  private static int integer(Map<String, String> env, String name, int fallback) {
    String value = env.get(name);
    try {
      return value == null || value.isBlank() ? fallback : Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a whole number, got \"" + value + "\"");
    }
  }

  private static double number(Map<String, String> env, String name, double fallback) {
    String value = env.get(name);
    try {
      return value == null || value.isBlank() ? fallback : Double.parseDouble(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a number, got \"" + value + "\"");
    }
  }
}
