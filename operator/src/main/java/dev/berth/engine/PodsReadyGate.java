package dev.berth.engine;

import java.util.Collection;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * waitForPodsReady's blockAdmission: while a workload holding quota does not have all its pods
 * ready, nothing else is admitted, so that two half-scheduled gangs never hold parts of each
 * other's nodes. The operator reports readiness (the Workload's PodsReady condition); readiness
 * ends with the quota, so a workload admitted again must become ready again.
 */
final class PodsReadyGate {
  private boolean enabled;
  private final Set<String> ready = new HashSet<>();

  void enable(boolean on) {
    enabled = on;
  }

  boolean enabled() {
    return enabled;
  }

  /** Returns whether anything changed. */
  boolean ready(String uid, boolean isReady) {
    return isReady ? ready.add(uid) : ready.remove(uid);
  }

  /** The quota is released: a next admission starts unready. */
  void released(String uid) {
    ready.remove(uid);
  }

  /** The first workload (by UID, for a stable message) holding quota without ready pods. */
  Optional<String> blocker(Collection<String> holdingQuota) {
    if (!enabled) {
      return Optional.empty();
    }
    return holdingQuota.stream().filter(uid -> !ready.contains(uid)).sorted().findFirst();
  }
}
