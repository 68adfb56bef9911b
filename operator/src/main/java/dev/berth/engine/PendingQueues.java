package dev.berth.engine;

import dev.berth.engine.model.ClusterQueue;
import dev.berth.engine.model.Explanation;
import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.PendingReason;
import dev.berth.engine.model.SpentBudgets;
import dev.berth.engine.model.Workload;
import dev.berth.engine.queue.Bucket;
import dev.berth.engine.queue.LocalQueueState;
import dev.berth.engine.queue.PendingQueue;
import dev.berth.engine.queue.PendingWorkload;
import dev.berth.engine.quota.QuotaNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What waits, in order (Kueue's queue manager): the LocalQueues and namespace labels, each pending
 * workload routed through its LocalQueue to its ClusterQueue's {@link PendingQueue} (or held
 * unrouted while the LocalQueue does not exist), which ClusterQueues have a head to look at (the
 * dirty list, the cycle's heads), and the parked and blocked ones with what wakes them: a release
 * in their cohort tree (the wake lists) or free node capacity (the topology waiters). Nothing
 * rescans; only an event that could change an answer brings parked work back.
 */
final class PendingQueues implements QuotaStore.Events {
  private final QuotaStore quota;
  private final Map<String, LocalQueueState> localQueues = new HashMap<>();
  private final Map<String, Map<String, String>> namespaces = new HashMap<>();
  private final Map<String, PendingWorkload> pending = new HashMap<>();

  /** Workloads whose LocalQueue does not exist, by UID. */
  private final Map<String, LocalQueueState> unrouted = new HashMap<>();

  private final List<ClusterQueueState> dirty = new ArrayList<>();

  /**
   * Per cohort tree: the ClusterQueues with parked buckets or a blocked head, to wake on a release.
   */
  private List<List<ClusterQueueState>> wakeLists = new ArrayList<>();

  /** ClusterQueues whose head waits for topology capacity: woken when nodes or pods free some. */
  private final Set<ClusterQueueState> topologyWaiters = new LinkedHashSet<>();

  private final Set<ClusterQueueState> lookAgain = new LinkedHashSet<>();

  private SpentBudgets spentBudgets = SpentBudgets.NONE;

  PendingQueues(QuotaStore quota) {
    this.quota = quota;
    quota.listen(this);
  }

  // ---------------------------------------------------------------- LocalQueues and namespaces

  LocalQueueState localQueue(String namespace, String name) {
    return localQueues.computeIfAbsent(
        namespace + "/" + name, k -> new LocalQueueState(namespace, name));
  }

  /** The LocalQueue's state, or null when it was never named. */
  LocalQueueState findLocalQueue(String key) {
    return localQueues.get(key);
  }

  Collection<LocalQueueState> localQueues() {
    return localQueues.values();
  }

  /** Returns the LocalQueue's state, or null when the spec is unchanged. */
  LocalQueueState upsertLocalQueue(LocalQueue spec) {
    LocalQueueState lq = localQueue(spec.namespace(), spec.name());
    LocalQueue old = lq.spec();
    if (spec.equals(old)) {
      return null;
    }
    if (old != null && !old.clusterQueue().equals(spec.clusterQueue())) {
      unroute(lq);
    }
    lq.spec(spec);
    for (Workload w : new ArrayList<>(lq.unrouted().values())) {
      lq.unrouted().remove(w.uid());
      unrouted.remove(w.uid());
      route(w, lq);
    }
    refreshHold(lq);
    return lq;
  }

  /** Its pending workloads become Inadmissible, unrouted until it comes back. */
  void deleteLocalQueue(String namespace, String name) {
    LocalQueueState lq = localQueues.get(namespace + "/" + name);
    if (lq == null || lq.spec() == null) {
      return;
    }
    unroute(lq);
    lq.spec(null);
  }

  void upsertNamespace(String name, Map<String, String> labels) {
    if (Map.copyOf(labels).equals(namespaces.put(name, Map.copyOf(labels)))) {
      return;
    }
    refreshNamespace(name);
  }

  void deleteNamespace(String name) {
    namespaces.remove(name);
    refreshNamespace(name);
  }

  Map<String, Map<String, String>> namespaces() {
    return namespaces;
  }

  /**
   * The budgets spent now: the LocalQueues they name hold their pending workloads, the others are
   * released. Nothing is looked at again when the set and its messages are unchanged.
   */
  void budgets(SpentBudgets spent) {
    if (spent.equals(spentBudgets)) {
      return;
    }
    SpentBudgets before = spentBudgets;
    spentBudgets = spent;
    for (LocalQueueState lq : localQueues.values()) {
      if (lq.spec() != null
          && !java.util.Objects.equals(spentHold(before, lq), spentHold(spent, lq))) {
        refreshHold(lq);
      }
    }
  }

  // ---------------------------------------------------------------- pending workloads

  PendingWorkload pending(String uid) {
    return pending.get(uid);
  }

  Collection<PendingWorkload> pending() {
    return pending.values();
  }

  Set<String> pendingUids() {
    return pending.keySet();
  }

  /** The LocalQueue a workload waits for, or null when it is routed or unknown. */
  LocalQueueState unroutedQueue(String uid) {
    return unrouted.get(uid);
  }

  Set<String> unroutedUids() {
    return unrouted.keySet();
  }

  boolean contains(String uid) {
    return pending.containsKey(uid) || unrouted.containsKey(uid);
  }

  int size() {
    return pending.size() + unrouted.size();
  }

  /** Adds or replaces a pending workload; false when it is already pending as it is. */
  boolean upsert(Workload w) {
    PendingWorkload existing = pending.get(w.uid());
    if (existing != null) {
      if (toWorkload(existing).equals(w)) {
        return false;
      }
      removePending(existing);
    } else {
      forgetUnrouted(w.uid());
    }
    add(w);
    return true;
  }

  /** Forgets a pending workload, routed or not. */
  void remove(String uid) {
    PendingWorkload pw = pending.get(uid);
    if (pw != null) {
      removePending(pw);
    }
    forgetUnrouted(uid);
  }

  /** Queues a workload through its LocalQueue (unrouted while that does not exist). */
  void add(Workload w) {
    LocalQueueState lq = localQueue(w.namespace(), w.queueName());
    if (lq.spec() == null) {
      lq.unrouted().put(w.uid(), w);
      unrouted.put(w.uid(), lq);
      return;
    }
    route(w, lq);
  }

  /** Takes the cycle's admitted head out of its queue. */
  void admitted(PendingWorkload pw, ClusterQueueState cq) {
    cq.queue.remove(pw);
    pending.remove(pw.uid());
  }

  Workload toWorkload(PendingWorkload pw) {
    Bucket b = pw.bucket();
    LocalQueueState lq = b.localQueue();
    return new Workload(
        pw.uid(),
        lq.namespace(),
        pw.name(),
        lq.name(),
        b.priority(),
        pw.queueTimestamp(),
        b.podSets());
  }

  private void forgetUnrouted(String uid) {
    LocalQueueState lq = unrouted.remove(uid);
    if (lq != null) {
      lq.unrouted().remove(uid);
    }
  }

  private void route(Workload w, LocalQueueState lq) {
    ClusterQueueState cq = quota.queue(lq.spec().clusterQueue());
    PendingWorkload pw = new PendingWorkload(w.uid(), w.name(), w.queueTimestamp());
    Bucket b = cq.queue.add(pw, lq, w.priority(), w.podSets());
    pending.put(w.uid(), pw);
    if (b.state() != Bucket.State.ACTIVE) {
      return;
    }
    Bucket head = cq.queue.headBucket();
    if (head == b && b.front() == pw) {
      // A new head: a blocked queue must look again.
      lookAgain(cq);
    } else if (!cq.blocked) {
      markDirty(cq);
    }
  }

  private void unroute(LocalQueueState lq) {
    for (Bucket b : new ArrayList<>(lq.buckets())) {
      List<PendingWorkload> members = new ArrayList<>();
      b.members().forEach(members::add);
      for (PendingWorkload pw : members) {
        Workload w = toWorkload(pw);
        removePending(pw);
        lq.unrouted().put(w.uid(), w);
        unrouted.put(w.uid(), lq);
      }
    }
  }

  private void removePending(PendingWorkload pw) {
    Bucket b = pw.bucket();
    ClusterQueueState cq = quota.find(b.queue().clusterQueue());
    boolean wasHead = cq.queue.headBucket() == b && b.front() == pw;
    cq.queue.remove(pw);
    pending.remove(pw.uid());
    if (cq.preemption != null && cq.preemption.preemptorUid.equals(pw.uid())) {
      quota.cancelPreemption(cq);
      lookAgain(cq);
    }
    if (wasHead) {
      lookAgain(cq);
    }
  }

  // ---------------------------------------------------------------- holds

  private void refreshNamespace(String namespace) {
    for (LocalQueueState lq : localQueues.values()) {
      if (lq.namespace().equals(namespace)) {
        refreshHold(lq);
      }
    }
  }

  /** Holds a LocalQueue's buckets while it is stopped or its namespace does not match. */
  private void refreshHold(LocalQueueState lq) {
    if (lq.spec() == null) {
      return;
    }
    ClusterQueueState cq = quota.queue(lq.spec().clusterQueue());
    Explanation why = null;
    if (lq.spec().stopPolicy().stopped()) {
      why =
          Explanation.of(
              PendingReason.Inadmissible,
              "LocalQueue " + lq.key() + " is stopped (" + lq.spec().stopPolicy() + ")");
    } else if (cq.spec != null && !namespaceMatches(cq.spec, lq.namespace())) {
      why =
          Explanation.of(
              PendingReason.Inadmissible,
              "namespace "
                  + lq.namespace()
                  + " doesn't match the namespaceSelector of ClusterQueue "
                  + cq.name);
    }
    SpentBudgets.Hold spent = why == null ? spentHold(spentBudgets, lq) : null;
    if (spent != null && !spent.idleCapacityOnly()) {
      why = Explanation.of(PendingReason.BudgetExhausted, spent.message());
    }
    PendingQueue.idleCapacityOnly(
        lq, spent != null && spent.idleCapacityOnly() ? spent.message() : null);
    PendingQueue.hold(lq, why);
    lookAgain(cq);
  }

  private SpentBudgets.Hold spentHold(SpentBudgets spent, LocalQueueState lq) {
    return spent.holdFor(
        lq.key(),
        lq.spec().clusterQueue(),
        namespaces.getOrDefault(lq.namespace(), Map.of()).get(SpentBudgets.COST_CENTRE_LABEL));
  }

  private boolean namespaceMatches(ClusterQueue spec, String namespace) {
    return spec.namespaceSelector() != null
        && spec.namespaceSelector().matches(namespaces.getOrDefault(namespace, Map.of()));
  }

  // ---------------------------------------------------------------- heads and wake-ups

  /** Something about the queue's head changed: a blocked queue looks again in the next cycle. */
  void lookAgain(ClusterQueueState cq) {
    cq.blocked = false;
    markDirty(cq);
  }

  void markDirty(ClusterQueueState cq) {
    if (!cq.dirty) {
      cq.dirty = true;
      dirty.add(cq);
    }
  }

  boolean hasDirty() {
    return !dirty.isEmpty();
  }

  /** The ClusterQueues with a head to look at since the last cycle; the list starts empty again. */
  List<ClusterQueueState> takeDirty() {
    List<ClusterQueueState> out = new ArrayList<>(dirty);
    dirty.clear();
    for (ClusterQueueState cq : out) {
      cq.dirty = false;
    }
    return out;
  }

  /** Puts a ClusterQueue in its tree's wake list: a release in the tree brings it back. */
  void registerWake(ClusterQueueState cq) {
    if (!cq.waking && cq.node != null && cq.node.active()) {
      wakeLists.get(cq.node.treeIndex()).add(cq);
      cq.waking = true;
    }
  }

  /**
   * Its head's preemption waits for this cycle's admissions to become candidates: it competes again
   * at the start of the next cycle. (An admission is written, and the write's result brings the
   * operator's next cycle.)
   */
  void lookAgainNextCycle(ClusterQueueState cq) {
    lookAgain.add(cq);
  }

  /** At the start of a cycle: the heads that waited for the previous cycle's admissions. */
  void unparkLookAgain() {
    wakeAll(lookAgain);
  }

  /** Its head waits for node capacity: it looks again when nodes or pods free some. */
  void awaitTopology(ClusterQueueState cq) {
    topologyWaiters.add(cq);
  }

  /** Something that could change the answer happened in the tree of cq: parked work comes back. */
  void wakeTree(ClusterQueueState cq) {
    if (quota.treeStale() || cq.node == null || !cq.node.active()) {
      markDirty(cq);
      return;
    }
    List<ClusterQueueState> list = wakeLists.get(cq.node.treeIndex());
    for (ClusterQueueState q : list) {
      q.waking = false;
      q.blocked = false;
      q.queue.unparkAll();
      markDirty(q);
    }
    list.clear();
    markDirty(cq);
  }

  /** Node capacity was freed: heads that waited for a topology placement look again. */
  void wakeTopologyWaiters() {
    wakeAll(topologyWaiters);
  }

  /** The queues' parked heads compete again in the next cycle; the set starts empty again. */
  private void wakeAll(Set<ClusterQueueState> waiting) {
    for (ClusterQueueState cq : waiting) {
      cq.blocked = false;
      cq.queue.unparkAll();
      markDirty(cq);
    }
    waiting.clear();
  }

  @Override
  public void freed(ClusterQueueState cq) {
    wakeTree(cq);
  }

  /** A structural change can change any answer: everything parked competes again. */
  @Override
  public void rebuilt() {
    wakeLists = new ArrayList<>();
    for (QuotaNode ignored : quota.tree().roots()) {
      wakeLists.add(new ArrayList<>());
    }
    for (ClusterQueueState cq : quota.queues().values()) {
      cq.queue.orderByUsage(cq.spec != null && cq.spec.usageBasedAdmissionFairSharing());
      cq.waking = false;
      cq.blocked = false;
      cq.queue.unparkAll();
      markDirty(cq);
    }
    for (LocalQueueState lq : localQueues.values()) {
      refreshHold(lq);
    }
  }
}
