package dev.berth.engine;

import dev.berth.engine.model.Explanation;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Why the workloads of the buckets a cycle touched still wait, frozen when the cycle ended: per
 * bucket its members' UIDs and the explanations of its head and of the rest (all but a queue's head
 * share their bucket's reason). Explanations hold numbers, not engine state, so formatting them
 * when first read gives what the cycle decided; the cycle itself pays only for the UIDs.
 */
final class PendingReasons {
  /** One bucket: {@code head} is the index of the queue's head among {@code uids}, or -1. */
  record Group(
      String clusterQueue, String[] uids, int head, Explanation headWhy, Explanation sharedWhy) {}

  static final PendingReasons NONE = new PendingReasons(List.of());

  private final List<Group> groups;

  /** Volatile: the operator may read a result off the loop thread; building twice is harmless. */
  private volatile Map<String, PendingStatus> byUid;

  PendingReasons(List<Group> groups) {
    this.groups = groups;
  }

  /** By UID, in the order the cycle looked at them; built once, on first read. */
  Map<String, PendingStatus> byUid() {
    Map<String, PendingStatus> built = byUid;
    if (built == null) {
      Map<String, PendingStatus> out = new LinkedHashMap<>();
      for (Group g : groups) {
        for (int i = 0; i < g.uids.length; i++) {
          String uid = g.uids[i];
          out.put(
              uid, new PendingStatus(uid, g.clusterQueue, i == g.head ? g.headWhy : g.sharedWhy));
        }
      }
      built = Collections.unmodifiableMap(out);
      byUid = built;
    }
    return built;
  }
}
