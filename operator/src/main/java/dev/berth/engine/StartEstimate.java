package dev.berth.engine;

/**
 * When the start-time replay expects a pending workload to get its quota reserved (epoch millis, or
 * null when it cannot say), and on what assumptions ({@code basis}): "fits now",
 * "maxExecutionTime", "median of N finished in CQ", several of them joined by "; ", or "unknown:
 * why".
 */
public record StartEstimate(Long startAt, String basis) {
  /** How the basis of one the replay did not reach begins (too far back in the queue). */
  public static final String BEYOND_REPLAY = "unknown: beyond the replay bound";

  public boolean known() {
    return startAt != null;
  }

  public boolean beyondReplay() {
    return basis.startsWith(BEYOND_REPLAY);
  }
}
