package dev.berth.engine;

import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * waitForPodsReady's blockAdmission: while a workload holding quota does not have all its pods
 * ready, nothing else is admitted, so that two half-scheduled gangs never hold parts of each
 * other's nodes. The operator reports readiness (the Workload's PodsReady condition); readiness
 * ends with the quota, so a workload admitted again must become ready again.
 */
final class PodsReadyGate {
  private boolean enabled;
  private final Set<String> ready = new HashSet<>();

  /** Quota holders not ready, kept up to date so that asking costs nothing per workload. */
  private final TreeSet<String> notReady = new TreeSet<>();

  void enable(boolean on) {
    enabled = on;
  }

  /** The operator's observation; {@code holding}: the workload holds quota in the engine. */
  void ready(String uid, boolean isReady, boolean holding) {
    if (isReady) {
      ready.add(uid);
      notReady.remove(uid);
    } else {
      ready.remove(uid);
      if (holding) {
        notReady.add(uid);
      }
    }
  }

  /** Quota reserved (admitted by a cycle, or recorded). */
  void holding(String uid) {
    if (!ready.contains(uid)) {
      notReady.add(uid);
    }
  }

  /** The quota is released (or an admission undone): a next admission starts unready. */
  void released(String uid) {
    ready.remove(uid);
    notReady.remove(uid);
  }

  /** The first workload (by UID, for a stable message) holding quota without ready pods. */
  Optional<String> blocker() {
    return enabled && !notReady.isEmpty() ? Optional.of(notReady.first()) : Optional.empty();
  }
}
