package dev.berth.engine.usage;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Follows each workload's quota reservations from its observed versions and tells when a run opens
 * and when it ends, each exactly once: a run is keyed by its reservation time, so seeing a version
 * again, or a finished workload after a restart, never counts a run twice. Pure and single-threaded
 * (the admission loop's thread).
 */
public final class UsageLedger {
  /** A run began holding quota, or ended; the consumer bills and records it. */
  public sealed interface Event permits Opened, Ended {}

  public record Opened(Run run) implements Event {}

  /**
   * @param durable false when the workload is gone and there is no object to record it on
   */
  public record Ended(Run run, boolean durable) implements Event {}

  private final Map<String, Run> open = new HashMap<>();

  /** Start of the last run that ended, per workload, until the workload is deleted. */
  private final Map<String, Long> ended = new HashMap<>();

  public List<Event> observe(WorkloadObservation w) {
    List<Event> events = new ArrayList<>();
    Run running = open.get(w.uid());
    if (w.finishedAt() != null) {
      if (running != null) {
        end(running, w.finishedAt(), true, events);
      } else if (w.reservedAt() != null && !counted(w, w.reservedAt())) {
        // Finished while no one watched (operator down): the run is known from its conditions.
        end(start(w), w.finishedAt(), true, events);
      }
      return events;
    }
    if (w.reservedAt() != null) {
      if (running != null && running.start() != w.reservedAt()) {
        // A release and a new reservation both happened between two observed versions.
        end(running, w.reservedAt(), true, events);
        running = null;
      }
      if (running == null && !counted(w, w.reservedAt())) {
        Run run = start(w);
        open.put(w.uid(), run);
        events.add(new Opened(run));
      }
      return events;
    }
    if (running != null) {
      long at = w.releasedAt() == null ? running.start() : w.releasedAt();
      end(running, at, true, events);
    }
    return events;
  }

  /** The Workload was deleted at {@code now}: an open run ends then, with nothing to record on. */
  public List<Event> deleted(String uid, long now) {
    ended.remove(uid);
    Run running = open.remove(uid);
    return running == null ? List.of() : List.of(new Ended(running.endedAt(now), false));
  }

  /** Runs holding quota now. */
  public List<Run> openRuns() {
    return List.copyOf(open.values());
  }

  private boolean counted(WorkloadObservation w, long start) {
    Long last = ended.get(w.uid());
    return (last != null && start <= last)
        || (w.lastCountedRunStart() != null && start <= w.lastCountedRunStart());
  }

  private static Run start(WorkloadObservation w) {
    return new Run(w.uid(), w.name(), w.owner(), w.reservedAt(), null, w.requests());
  }

  private void end(Run run, long at, boolean durable, List<Event> events) {
    open.remove(run.uid());
    ended.put(run.uid(), run.start());
    events.add(new Ended(run.endedAt(at), durable));
  }
}
