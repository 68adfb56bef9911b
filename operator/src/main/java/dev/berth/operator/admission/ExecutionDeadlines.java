package dev.berth.operator.admission;

import dev.berth.api.v1beta1.Workload;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Admitted workloads with a maximum execution time: when each uses it up (epoch millis). Only an
 * admitted, active one runs against its limit; an evicted, deactivated or finished one does not.
 * Loop thread only.
 */
public final class ExecutionDeadlines implements ClusterObserver {
  private final DueTimes deadlines = new DueTimes();

  @Override
  public void workload(Workload wl, WorkloadPhase phase) {
    String uid = wl.getMetadata().getUid();
    OptionalLong deadline =
        phase instanceof WorkloadPhase.Admitted admitted
            ? ExecutionTimeLimit.deadline(wl, admitted.admittedAt())
            : OptionalLong.empty();
    if (deadline.isPresent()) {
      deadlines.put(uid, deadline.getAsLong());
    } else {
      deadlines.remove(uid);
    }
  }

  @Override
  public void workloadDeleted(String uid, Workload last) {
    deadlines.remove(uid);
  }

  /** A deactivation for maximum execution time that failed to write is asked again. */
  void again(Workload wl) {
    ExecutionTimeLimit.deadline(wl).ifPresent(at -> deadlines.put(wl.getMetadata().getUid(), at));
  }

  /** The workloads whose maximum execution time is used up at {@code now}, no longer timed. */
  List<String> takeOutOfTime(long now) {
    return deadlines.takeDue(now);
  }

  /** When the next one runs out. */
  OptionalLong next() {
    return deadlines.next();
  }

  /** A copy, for the start-time replay. */
  Map<String, Long> snapshot() {
    return deadlines.snapshot();
  }
}
