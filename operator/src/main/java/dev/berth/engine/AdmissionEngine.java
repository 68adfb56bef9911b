package dev.berth.engine;

import dev.berth.engine.model.AdmissionFairSharing;
import dev.berth.engine.model.ClusterQueue;
import dev.berth.engine.model.Cohort;
import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.StopPolicy;
import dev.berth.engine.model.Workload;
import dev.berth.engine.queue.LocalQueueState;
import dev.berth.engine.queue.PendingWorkload;
import dev.berth.engine.topology.NodeInventory;
import dev.berth.engine.topology.Topology;
import dev.berth.engine.topology.TopologyNode;
import dev.berth.engine.topology.TopologyState;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The admission engine: the operator feeds it watch events and calls {@link #runCycle(long)} to
 * learn what to admit, evict and report. Pure and deterministic: no I/O, no threads, no clock (time
 * is passed in).
 *
 * <p>A facade over parts with one job each: the {@link PendingQueues} (what waits, in order), the
 * {@link QuotaStore} (what is admitted and what quota there is), the {@link TopologyState} (node
 * capacity of topology-aware flavors), the {@link EvictionExpectations}, and the {@link
 * AdmissionCycle} that decides. An event here updates the part it concerns and wakes what it could
 * change; the cycle reads and changes the parts as one transaction.
 *
 * <p><b>Single-threaded by contract:</b> every method must be called from one thread (the
 * operator's scheduling loop); the engine does no locking.
 *
 * <p>Quantities are exact longs in canonical units ({@code cpu} in millicores, everything else in
 * base units; see {@code Quantity}).
 */
public final class AdmissionEngine {
  private final QuotaStore quota = new QuotaStore();
  private final PendingQueues pending = new PendingQueues(quota);
  private final TopologyState topology = new TopologyState();
  private final EvictionExpectations expectations = new EvictionExpectations();
  private final StatusView status = new StatusView(pending, quota, this::startEstimate);
  private final RuntimeHistory runtimes = new RuntimeHistory();
  private final LocalQueueUsage usage = new LocalQueueUsage(pending, quota);

  private final EntryOrdering ordering;
  private final PreemptionPlanner planner;

  /** The last start-time replay's estimates by pending UID ({@link #estimateStarts}). */
  private Map<String, StartEstimate> estimates = Map.of();

  /** Off in the start-time replay's copy, which reads only admissions and evictions. */
  private boolean pendingReasonsInResults = true;

  /**
   * Entries ordered by {@link BorrowingLastOrdering}, victims chosen by {@link
   * ClassicalPreemption}.
   */
  public AdmissionEngine() {
    this(new BorrowingLastOrdering(), new ClassicalPreemption());
  }

  /**
   * With {@link FairSharingOrdering} and {@link ClassicalPreemption}, victims are chosen by {@link
   * FairSharingPreemption} instead: fair sharing orders entries and preempts by share.
   */
  public AdmissionEngine(EntryOrdering ordering, PreemptionPlanner planner) {
    this.ordering = ordering;
    this.planner =
        ordering instanceof FairSharingOrdering && planner instanceof ClassicalPreemption
            ? new FairSharingPreemption()
            : planner;
    topology.flavorsChanged(quota.flavors());
  }

  // ---------------------------------------------------------------- cluster objects

  public void upsertResourceFlavor(ResourceFlavor flavor) {
    // Informer resyncs deliver unchanged objects: those must not wake every parked workload.
    if (quota.upsertFlavor(flavor)) {
      topology.flavorsChanged(quota.flavors());
    }
  }

  public void deleteResourceFlavor(String name) {
    quota.deleteFlavor(name);
    topology.flavorsChanged(quota.flavors());
  }

  // ---------------------------------------------------------------- topology: nodes and pods

  public void upsertTopology(Topology t) {
    if (topology.upsertTopology(t)) {
      pending.wakeTopologyWaiters();
    }
  }

  public void deleteTopology(String name) {
    topology.deleteTopology(name);
  }

  /** A Node as placement sees it; pass only changes of what {@link TopologyNode} holds. */
  public void upsertNode(TopologyNode node) {
    if (topology.upsertNode(node)) {
      pending.wakeTopologyWaiters();
    }
  }

  public void deleteNode(String name) {
    if (topology.deleteNode(name)) {
      pending.wakeTopologyWaiters();
    }
  }

  /**
   * A running pod bound to a node, not part of a topology-placed podSet (those are counted by their
   * placement): its requests take node capacity. Requests in canonical units.
   */
  public void upsertBoundPod(String uid, String nodeName, Map<String, Long> requests) {
    upsertBoundPod(uid, nodeName, null, requests);
  }

  /**
   * A bound pod known to sit in one sub-domain (NUMA domain) of its node. With {@code subDomain}
   * null, or not a sub-domain of the node, it fills the node's sub-domains in order.
   */
  public void upsertBoundPod(
      String uid, String nodeName, String subDomain, Map<String, Long> requests) {
    if (topology.upsertBoundPod(uid, nodeName, subDomain, requests)) {
      pending.wakeTopologyWaiters();
    }
  }

  /** The pod finished, was deleted or was never bound: its node capacity is free. */
  public void deleteBoundPod(String uid) {
    if (topology.deleteBoundPod(uid)) {
      pending.wakeTopologyWaiters();
    }
  }

  public void upsertClusterQueue(ClusterQueue spec) {
    if (quota.upsertClusterQueue(spec) && spec.stopPolicy() == StopPolicy.HoldAndDrain) {
      ClusterQueueState cq = quota.queue(spec.name());
      drain(
          cq,
          null,
          EvictionReason.ClusterQueueStopped,
          "ClusterQueue " + cq.name + " is stopped (HoldAndDrain)");
    }
  }

  /** Pending workloads stay, Inadmissible, until the ClusterQueue comes back. */
  public void deleteClusterQueue(String name) {
    quota.deleteClusterQueue(name);
  }

  /**
   * A ClusterQueue being deleted (deletionTimestamp set, finalizer still on) admits nothing new,
   * whatever its stopPolicy; what it holds keeps its quota until it finishes. A waiting preemptor
   * gives up its reservation. The flag is the operator's to set, from the object's metadata, and
   * stays until {@link #deleteClusterQueue} or until the operator clears it.
   */
  public void clusterQueueTerminating(String name, boolean terminating) {
    ClusterQueueState cq = quota.queue(name);
    if (cq.terminating == terminating) {
      return;
    }
    cq.terminating = terminating;
    if (terminating) {
      quota.cancelPreemption(cq);
    }
    pending.lookAgain(cq);
  }

  public void upsertCohort(Cohort cohort) {
    quota.upsertCohort(cohort);
  }

  public void deleteCohort(String name) {
    quota.deleteCohort(name);
  }

  public void upsertLocalQueue(LocalQueue spec) {
    LocalQueueState lq = pending.upsertLocalQueue(spec);
    if (lq == null) {
      return;
    }
    // Its weight may have changed.
    usage.rescore(lq);
    ClusterQueueState cq = quota.queue(spec.clusterQueue());
    if (spec.stopPolicy() == StopPolicy.HoldAndDrain) {
      drain(
          cq,
          lq.key(),
          EvictionReason.LocalQueueStopped,
          "LocalQueue " + lq.key() + " is stopped (HoldAndDrain)");
    }
    pending.wakeTree(cq);
  }

  /** Its pending workloads become Inadmissible; admitted ones keep their quota. */
  public void deleteLocalQueue(String namespace, String name) {
    pending.deleteLocalQueue(namespace, name);
  }

  /**
   * The budgets spent in their current window (worked out by the operator from the usage ledger):
   * the LocalQueues they name hold their pending workloads, reason BudgetExhausted with the
   * budget's message, until a later call no longer names them. What is admitted keeps running.
   */
  public void budgets(dev.berth.engine.model.SpentBudgets spent) {
    pending.budgets(spent);
  }

  public void upsertNamespace(String name, Map<String, String> labels) {
    pending.upsertNamespace(name, labels);
  }

  public void deleteNamespace(String name) {
    pending.deleteNamespace(name);
  }

  // ---------------------------------------------------------------- workloads

  /** Adds or updates a pending workload. Ignored while it holds quota (its spec is immutable). */
  public void upsertWorkload(Workload w) {
    if (quota.admitted(w.uid()) == null) {
      pending.upsert(w);
    }
  }

  /** A deleted or deactivated workload: forgotten; quota released if it held any. */
  public void removeWorkload(String uid) {
    pending.remove(uid);
    release(uid);
  }

  /** The workload finished (Succeeded or Failed): its quota is released. */
  public boolean workloadFinished(String uid) {
    return release(uid);
  }

  /**
   * The Workload shows Evicted: the eviction needs no more asking, and the workload is no
   * preemption candidate until its quota is released (also after a restart, for workloads found
   * already Evicted).
   */
  public void evictionObserved(String uid) {
    expectations.forget(uid);
    AdmittedWorkload a = quota.admitted(uid);
    if (a != null) {
      a.evictionRequested = true;
    }
  }

  /**
   * As {@link #evictionObserved(String)}, for a workload preempted for {@code reason}: a reclaim
   * (another queue taking back its quota, by reclamation, while borrowing or for fair sharing)
   * pauses its queue's borrowing for the queue's borrowBackoffMillis from {@code now}, once per
   * eviction, so that the quota just freed is not borrowed again by the next workload in line.
   */
  public void evictionObserved(String uid, PreemptionReason reason, long now) {
    AdmittedWorkload a = quota.admitted(uid);
    evictionObserved(uid);
    if (a == null
        || a.reclaimSeen
        || reason == null
        || reason == PreemptionReason.InClusterQueue
        // It took idle capacity and gave it back: nothing its queue may borrow was reclaimed.
        || reason == PreemptionReason.OnIdleCapacity) {
      return;
    }
    a.reclaimSeen = true;
    ClusterQueueState cq = quota.queue(a.clusterQueue);
    long backoff = cq == null || cq.spec == null ? 0 : cq.spec.borrowBackoffMillis();
    if (backoff > 0 && now + backoff > cq.borrowingPausedUntil) {
      cq.borrowingPausedUntil = now + backoff;
    }
  }

  /**
   * An admitted workload runs on idle capacity (read back from its Workload, as at a restart): it
   * is every preemptor's first victim until its quota is released. {@code why} names the spent
   * budget.
   */
  public void onIdleCapacity(String uid, String why) {
    AdmittedWorkload a = quota.admitted(uid);
    if (a != null && why != null) {
      quota.onIdleCapacity(a, why);
    }
  }

  /**
   * Why an admitted workload runs on idle capacity (its spent budget's message when it was
   * admitted), or empty: it is admitted within its budget, or holds no quota.
   */
  public Optional<String> onIdleCapacity(String uid) {
    AdmittedWorkload a = quota.admitted(uid);
    return a == null ? Optional.empty() : Optional.ofNullable(a.onIdleCapacity);
  }

  /**
   * When an admitted workload last wrote a checkpoint (epoch millis; Long.MIN_VALUE for never): a
   * recent checkpoint makes it a cheaper victim ({@link VictimOrder}). Ignored while it holds no
   * quota.
   */
  public void checkpointed(String uid, long at) {
    AdmittedWorkload a = quota.admitted(uid);
    if (a != null) {
      a.checkpointAt = at;
    }
  }

  /**
   * The operator finished evicting an admitted workload: quota is released and it is requeued with
   * the eviction time as its queue timestamp.
   */
  public boolean workloadEvicted(String uid, long now) {
    AdmittedWorkload a = quota.admitted(uid);
    if (a == null) {
      return false;
    }
    release(uid);
    Workload w = a.workload;
    pending.add(
        new Workload(
            w.uid(), w.namespace(), w.name(), w.queueName(), w.priority(), now, w.podSets()));
    return true;
  }

  /**
   * Records a workload that already holds quota by its stored status, checking that it fits: an
   * admission the engine did not decide (another leader's write, or one whose outcome was unknown).
   * See {@link #recordAdmitted(Workload, String, List, long, boolean)}.
   */
  public List<Eviction> recordAdmitted(
      Workload w, String clusterQueue, List<PodSetAssignment> podSets, long admittedAt) {
    return recordAdmitted(w, clusterQueue, podSets, admittedAt, true);
  }

  /**
   * Records a workload that already holds quota by its stored status: at restart for every admitted
   * workload before the first {@link #runCycle} (oldest admission first; {@code checkFit} false, so
   * that a quota lowered below what runs keeps what runs, as at run time), and later for an
   * admission the engine did not decide ({@code checkFit} true). The admission is real, so it is
   * recorded whether it fits or not; when checked and its cohort tree is now over quota, the newest
   * admissions of the tree (possibly this one) are asked to be evicted ({@link
   * EvictionReason#OverQuota}) until it is within quota again. Returns those evictions.
   */
  public List<Eviction> recordAdmitted(
      Workload w,
      String clusterQueue,
      List<PodSetAssignment> podSets,
      long admittedAt,
      boolean checkFit) {
    removeWorkload(w.uid());
    AdmittedWorkload recorded =
        quota.record(
            w, clusterQueue, pending.localQueue(w.namespace(), w.queueName()), podSets, admittedAt);
    topology.record(w.uid(), w.podSets(), podSets);
    ClusterQueueState cq = quota.queue(clusterQueue);
    if (cq.spec != null && cq.spec.stopPolicy() == StopPolicy.HoldAndDrain) {
      drain(
          cq,
          null,
          EvictionReason.ClusterQueueStopped,
          "ClusterQueue " + cq.name + " is stopped (HoldAndDrain)");
    }
    LocalQueueState lq = pending.findLocalQueue(w.localQueueKey());
    if (lq != null && lq.spec() != null && lq.spec().stopPolicy() == StopPolicy.HoldAndDrain) {
      drain(
          cq,
          lq.key(),
          EvictionReason.LocalQueueStopped,
          "LocalQueue " + lq.key() + " is stopped (HoldAndDrain)");
    }
    List<Eviction> overQuota = new ArrayList<>();
    if (!checkFit) {
      return overQuota;
    }
    for (AdmittedWorkload victim : OverQuotaCheck.victims(quota, recorded)) {
      victim.evictionRequested = true;
      Eviction eviction =
          new Eviction(
              victim.workload.uid(),
              victim.clusterQueue,
              EvictionReason.OverQuota,
              "ClusterQueue "
                  + clusterQueue
                  + " was over quota once the admission of "
                  + w.namespace()
                  + "/"
                  + w.name()
                  + " was recorded; the newest admissions are evicted");
      expectations.expect(eviction);
      overQuota.add(eviction);
    }
    return overQuota;
  }

  /**
   * The operator could not write an admission: the quota is released and the workload requeued at
   * its old place (same queue timestamp).
   */
  public boolean rollback(Admission admission) {
    AdmittedWorkload a = quota.admitted(admission.workloadUid());
    if (a == null) {
      return false;
    }
    release(admission.workloadUid());
    pending.add(a.workload);
    return true;
  }

  // ---------------------------------------------------------------- the cycle

  /**
   * Runs one admission cycle at time {@code now} (epoch millis, used as admission time). The
   * result's evictions are every eviction still expected, not only the new ones. The cycle is one
   * transaction: if it throws, the engine is as it was before (see {@link CycleTransaction}).
   */
  public CycleResult runCycle(long now) {
    return runCycle(now, true);
  }

  /**
   * As {@link #runCycle(long)}; without {@code withReasons} the result has no pending reasons
   * (working them out walks every workload of each bucket the cycle looked at, and a caller that
   * reads them a few times a second need not pay for them in each of a hundred cycles).
   */
  public CycleResult runCycle(long now, boolean withReasons) {
    return new AdmissionCycle(
            quota,
            pending,
            topology,
            expectations,
            usage,
            pendingReasonsInResults && withReasons ? status : null,
            ordering,
            planner)
        .run(now);
  }

  // ---------------------------------------------------------------- admission fair sharing

  /** How LocalQueues' recent usage is measured; set once, before the first cycle. */
  public void admissionFairSharing(AdmissionFairSharing settings) {
    usage.settings(settings);
  }

  public AdmissionFairSharing admissionFairSharing() {
    return usage.settings();
  }

  /**
   * A LocalQueue's decayed usage as stored in its status ({@code at}: its lastUpdate, epoch
   * millis), read at start-up: taken when newer than the engine's own.
   */
  public void restoreLocalQueueUsage(
      String namespace, String name, Map<String, BigDecimal> consumed, long at) {
    usage.restore(namespace, name, consumed, at);
  }

  /**
   * Samples the admitted usage of the LocalQueues of every ClusterQueue that orders by usage into
   * their decayed usage at {@code now} (the operator calls it every sampling interval). Returns the
   * keys (namespace/name) of the LocalQueues sampled, whose status should be written.
   */
  public List<String> sampleLocalQueueUsage(long now) {
    return usage.sample(now);
  }

  /** A LocalQueue's recent usage as admission fair sharing sees it, or empty when never named. */
  public Optional<LocalQueueUsageView> localQueueUsage(String namespace, String name) {
    return status.localQueueUsage(namespace, name);
  }

  // ---------------------------------------------------------------- waitForPodsReady

  /**
   * blockAdmission on: while a workload holding quota does not have its pods ready, no other is
   * admitted (and nothing preempts for one); a cycle admits at most one workload.
   */
  public void blockAdmissionUntilPodsReady(boolean on) {
    quota.podsReady().enable(on);
  }

  /** The workload's PodsReady condition, as the operator observed it. */
  public void podsReady(String uid, boolean ready) {
    quota.podsReady().ready(uid, ready, quota.admitted(uid) != null);
  }

  /** The workload holding quota whose pods are not ready, while blockAdmission holds the rest. */
  public Optional<String> admissionBlockedBy() {
    return quota.podsReady().blocker();
  }

  // ---------------------------------------------------------------- start-time estimates

  /**
   * A finished workload ran {@code millis} admitted in a ClusterQueue: learned for the start-time
   * replay (the last {@link RuntimeHistory#KEEP} per ClusterQueue; a repeat is counted once).
   */
  public void recordRuntime(String clusterQueue, String uid, long finishedAt, long millis) {
    runtimes.record(clusterQueue, uid, finishedAt, millis);
  }

  /**
   * Replays the admission cycles on a copy of this engine over the admitted workloads' expected
   * ends (see {@link StartEstimator}) and keeps the result for {@link StatusView}. The engine
   * itself is left as it was.
   *
   * @param deadlines admitted workloads' ends by maximum execution time, by UID (epoch millis)
   * @param budgets pending workloads' maximum execution time left, by UID (millis)
   */
  public Map<String, StartEstimate> estimateStarts(
      long now, Map<String, Long> deadlines, Map<String, Long> budgets) {
    estimates = Map.copyOf(new StartEstimator(this, runtimes, deadlines, budgets).run(now));
    return estimates;
  }

  /** The last replay's estimate for a pending workload, or null when none was made. */
  public StartEstimate startEstimate(String uid) {
    return estimates.get(uid);
  }

  /**
   * A fresh engine with this one's cluster objects, admitted workloads (oldest admission first) and
   * pending workloads, for the replay. Pods bound to nodes outside a topology placement stay bound
   * in the copy; backoff is not copied; workloads parked as inadmissible are evaluated afresh.
   */
  AdmissionEngine simulationCopy() {
    AdmissionEngine copy = new AdmissionEngine(ordering, planner);
    copy.pendingReasonsInResults = false;
    copy.admissionFairSharing(usage.settings());
    quota.flavors().values().forEach(copy::upsertResourceFlavor);
    topology.copyTo(copy.topology);
    quota.cohorts().forEach(copy::upsertCohort);
    pending.namespaces().forEach(copy::upsertNamespace);
    for (ClusterQueueState cq : quota.queues().values()) {
      if (cq.spec != null) {
        copy.upsertClusterQueue(cq.spec);
        copy.clusterQueueTerminating(cq.name, cq.terminating);
      }
    }
    for (LocalQueueState lq : pending.localQueues()) {
      if (lq.spec() != null) {
        copy.upsertLocalQueue(lq.spec());
      }
      if (lq.consumedAt() != Long.MIN_VALUE) {
        copy.restoreLocalQueueUsage(lq.namespace(), lq.name(), lq.consumed(), lq.consumedAt());
      }
    }
    List<AdmittedWorkload> held = new ArrayList<>(quota.admitted());
    held.sort(
        Comparator.comparingLong((AdmittedWorkload a) -> a.admission.admittedAt())
            .thenComparing(a -> a.workload.uid()));
    for (AdmittedWorkload a : held) {
      copy.recordAdmitted(
          a.workload,
          a.clusterQueue,
          a.admission.podSetAssignments(),
          a.admission.admittedAt(),
          false);
      if (a.evictionRequested) {
        copy.quota.admitted(a.workload.uid()).evictionRequested = true;
      }
      copy.onIdleCapacity(a.workload.uid(), a.onIdleCapacity);
      copy.checkpointed(a.workload.uid(), a.checkpointAt);
    }
    for (PendingWorkload pw : pending.pending()) {
      copy.upsertWorkload(pending.toWorkload(pw));
    }
    return copy;
  }

  // ---------------------------------------------------------------- queries

  public Optional<Admission> admission(String uid) {
    AdmittedWorkload a = quota.admitted(uid);
    return a == null ? Optional.empty() : Optional.of(a.admission);
  }

  /**
   * Why the admitted workload's pods could run on no node of the flavors it was given (one line per
   * such podSet), for its owner to read: quota alone admitted it. Empty when each podSet has a
   * node, or no node is known.
   */
  public List<String> unreachablePodSets(String uid) {
    AdmittedWorkload a = quota.admitted(uid);
    return a == null
        ? List.of()
        : topology.unreachable(a.workload.podSets(), a.admission.podSetAssignments());
  }

  public boolean isPending(String uid) {
    return pending.contains(uid);
  }

  public int pendingCount() {
    return pending.size();
  }

  public int admittedCount() {
    return quota.admittedCount();
  }

  /**
   * The UIDs of the workloads holding quota: admitted, being written, or evicted and not yet
   * released (a few hundred where the cluster knows tens of thousands of workloads).
   */
  public List<String> quotaHolderUids() {
    List<String> out = new ArrayList<>(quota.admittedCount());
    for (AdmittedWorkload a : quota.admitted()) {
      out.add(a.workload.uid());
    }
    return out;
  }

  /** Status and metrics of queues and pending workloads (read-only, same thread). */
  public StatusView status() {
    return status;
  }

  /** Free node capacity of each topology-aware flavor, by domain (read-only, same thread). */
  public Map<String, NodeInventory> topologyInventories() {
    return topology.inventories();
  }

  /** The pending side, for the start-time replay and tests of this package. */
  PendingQueues pendingQueues() {
    return pending;
  }

  /** The quota side, for the start-time replay and tests of this package. */
  QuotaStore quotaStore() {
    return quota;
  }

  // ---------------------------------------------------------------- private

  /** Releases a workload's quota and node placements; false when it held none. */
  private boolean release(String uid) {
    if (quota.admitted(uid) == null) {
      return false;
    }
    expectations.forget(uid);
    if (topology.release(uid)) {
      pending.wakeTopologyWaiters();
    }
    quota.release(uid);
    return true;
  }

  /** HoldAndDrain: asks for the eviction of the queue's admitted workloads (of one LocalQueue). */
  private void drain(
      ClusterQueueState cq, String localQueueKey, EvictionReason reason, String message) {
    for (AdmittedWorkload a : cq.admitted.values()) {
      if (!a.evictionRequested
          && (localQueueKey == null || localQueueKey.equals(a.localQueue.key()))) {
        a.evictionRequested = true;
        expectations.expect(new Eviction(a.workload.uid(), cq.name, reason, message));
      }
    }
  }
}
