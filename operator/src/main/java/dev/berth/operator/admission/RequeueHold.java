package dev.berth.operator.admission;

import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.Timestamps;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.OptionalLong;

/**
 * Workloads back in their queue whose status.requeueState.requeueAt lies ahead: they are kept out
 * of the engine until then (Kueue does not reconsider them before it either), and returned to it by
 * the first cycle at or after that time.
 */
public final class RequeueHold {
  private final DueTimes until = new DueTimes();

  /** requeueAt in epoch millis, or 0 when the workload has none (or an unreadable one). */
  public static long requeueAt(Workload wl) {
    if (wl.getStatus() == null
        || wl.getStatus().requeueState == null
        || wl.getStatus().requeueState.requeueAt == null) {
      return 0;
    }
    try {
      return Timestamps.millis(wl.getStatus().requeueState.requeueAt);
    } catch (DateTimeParseException e) {
      return 0;
    }
  }

  void hold(String uid, long at) {
    until.put(uid, at);
  }

  boolean release(String uid) {
    return until.remove(uid);
  }

  boolean isHeld(String uid) {
    return until.contains(uid);
  }

  /** The held workloads due at {@code now}, no longer held. */
  List<String> takeDue(long now) {
    return until.takeDue(now);
  }

  /** When the next held workload is due. */
  OptionalLong next() {
    return until.next();
  }

  public int size() {
    return until.size();
  }
}
