package dev.berth.operator.admission;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Workloads each due at a time (epoch millis): the loop's timers for requeue backoffs, maximum
 * execution times and waits for ready pods. Written on the loop thread; the map is concurrent so
 * the start-time replay may copy it.
 */
final class DueTimes {
  private final Map<String, Long> due = new ConcurrentHashMap<>();

  void put(String uid, long at) {
    due.put(uid, at);
  }

  /** Returns whether it was timed. */
  boolean remove(String uid) {
    return due.remove(uid) != null;
  }

  boolean contains(String uid) {
    return due.containsKey(uid);
  }

  /** The workloads due at {@code now}, no longer timed. */
  List<String> takeDue(long now) {
    List<String> out = new ArrayList<>();
    due.forEach(
        (uid, at) -> {
          if (at <= now) {
            out.add(uid);
          }
        });
    out.forEach(due::remove);
    return out;
  }

  /** When the next one is due. */
  OptionalLong next() {
    return due.values().stream().mapToLong(Long::longValue).min();
  }

  Map<String, Long> snapshot() {
    return Map.copyOf(due);
  }

  int size() {
    return due.size();
  }
}
