package dev.berth.operator.admission;

import dev.berth.api.v1beta1.Workload;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The keys (Workload UIDs among them) with one of the loop's writes on the wire, and the watch
 * events of those Workloads meanwhile: held until the write's result is applied, so that an event
 * never overtakes the result of the write it may already show (see {@link WritePool}). Loop thread
 * only.
 */
final class WritesInFlight {
  private final Set<String> writing = new HashSet<>();

  /** The newest watch event of a Workload whose write is on the wire. */
  private final Map<String, Workload> heldEvents = new HashMap<>();

  private final Set<String> deletedWhileWriting = new HashSet<>();

  /** What was held back for a key while its write was on the wire. */
  record Held(Workload newest, boolean deleted) {}

  void started(String key) {
    writing.add(key);
  }

  /** Returns whether the event waits for a write's result; only the newest is kept. */
  boolean hold(Workload wl) {
    String uid = wl.getMetadata().getUid();
    if (!writing.contains(uid)) {
      return false;
    }
    Workload held = heldEvents.get(uid);
    if (held == null || ClusterState.isNewer(wl, held)) {
      heldEvents.put(uid, wl);
    }
    return true;
  }

  /** Returns whether the deletion waits for a write's result. */
  boolean holdDeletion(String uid) {
    if (!writing.contains(uid)) {
      return false;
    }
    deletedWhileWriting.add(uid);
    return true;
  }

  /** The write came back: what was held meanwhile, to be applied now (after its result). */
  Held finished(String key) {
    writing.remove(key);
    return new Held(heldEvents.remove(key), deletedWhileWriting.remove(key));
  }
}
