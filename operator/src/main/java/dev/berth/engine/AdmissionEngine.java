package dev.berth.engine;

import dev.berth.engine.flavor.Assignment;
import dev.berth.engine.flavor.CompiledQueue;
import dev.berth.engine.model.ClusterQueue;
import dev.berth.engine.model.Cohort;
import dev.berth.engine.model.Explanation;
import dev.berth.engine.model.LocalQueue;
import dev.berth.engine.model.PendingReason;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.StopPolicy;
import dev.berth.engine.model.Workload;
import dev.berth.engine.queue.Bucket;
import dev.berth.engine.queue.LocalQueueState;
import dev.berth.engine.queue.PendingQueue;
import dev.berth.engine.queue.PendingWorkload;
import dev.berth.engine.quota.FlavorResources;
import dev.berth.engine.quota.QuotaNode;
import dev.berth.engine.quota.QuotaTree;
import dev.berth.engine.topology.NodeInventory;
import dev.berth.engine.topology.Topology;
import dev.berth.engine.topology.TopologyNode;
import dev.berth.engine.topology.TopologyState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The admission engine: the operator feeds it watch events and calls {@link #runCycle(long)} to
 * learn what to admit, evict and report. Pure and deterministic: no I/O, no threads, no clock (time
 * is passed in).
 *
 * <p><b>Single-threaded by contract:</b> every method must be called from one thread (the
 * operator's scheduling loop); the engine does no locking.
 *
 * <p>Quantities are exact longs in canonical units ({@code cpu} in millicores, everything else in
 * base units; see {@code Quantity}).
 */
public final class AdmissionEngine {
  final Map<String, ResourceFlavor> flavors = new TreeMap<>();
  final Map<String, ClusterQueueState> queues = new TreeMap<>();
  final Map<String, Cohort> cohorts = new TreeMap<>();
  final Map<String, LocalQueueState> localQueues = new HashMap<>();
  final Map<String, Map<String, String>> namespaces = new HashMap<>();
  final Map<String, PendingWorkload> pending = new HashMap<>();
  final Map<String, LocalQueueState> unrouted = new HashMap<>();
  final Map<String, AdmittedWorkload> admitted = new HashMap<>();
  final FlavorResources frs = new FlavorResources();
  private final TopologyState topology = new TopologyState();

  /** ClusterQueues whose head waits for topology capacity: woken when nodes or pods free some. */
  private final Set<ClusterQueueState> topologyWaiters = new LinkedHashSet<>();

  private final List<ClusterQueueState> dirty = new ArrayList<>();

  /**
   * Evictions asked for and not yet seen done, by workload UID: sent again every cycle until the
   * operator reports the Workload shows Evicted ({@link #evictionObserved}) or its quota is
   * released, as Kueue's preemption expectations do. A lost or refused write is thus retried.
   */
  private final Map<String, Eviction> expectedEvictions = new LinkedHashMap<>();

  /** Evictions first asked for since the last cycle result (for counting, not for writing). */
  private final List<Eviction> freshEvictions = new ArrayList<>();

  /** The running cycle's journal, or null between cycles. */
  private CycleTransaction journal;

  private final EntryOrdering ordering;
  private final PreemptionPlanner planner;
  private final StatusView status = new StatusView(this);

  /** waitForPodsReady.blockAdmission: no admission while an admitted workload is not ready. */
  private final PodsReadyGate podsReady = new PodsReadyGate();

  private final RuntimeHistory runtimes = new RuntimeHistory();

  /** The last start-time replay's estimates by pending UID ({@link #estimateStarts}). */
  private Map<String, StartEstimate> estimates = Map.of();

  QuotaTree tree;

  /** Per cohort tree: its ClusterQueues (for preemption). */
  private List<List<ClusterQueueState>> treeQueues = new ArrayList<>();

  /**
   * Per cohort tree: the ClusterQueues with parked buckets or a blocked head, to wake on an event.
   */
  private List<List<ClusterQueueState>> wakeLists = new ArrayList<>();

  /** A ClusterQueue, Cohort or ResourceFlavor changed: rebuild the tree before using it. */
  private boolean treeStale = true;

  /** Victim UID to the preemptor waiting for it. */
  private final Map<String, PendingPreemption> preemptionOfVictim = new HashMap<>();

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
    topology.flavorsChanged(flavors);
  }

  // ---------------------------------------------------------------- cluster objects

  public void upsertResourceFlavor(ResourceFlavor flavor) {
    // Informer resyncs deliver unchanged objects: those must not wake every parked workload.
    if (flavor.equals(flavors.put(flavor.name(), flavor))) {
      return;
    }
    treeStale = true;
    topology.flavorsChanged(flavors);
  }

  public void deleteResourceFlavor(String name) {
    flavors.remove(name);
    treeStale = true;
    topology.flavorsChanged(flavors);
  }

  // ---------------------------------------------------------------- topology: nodes and pods

  public void upsertTopology(Topology t) {
    if (topology.upsertTopology(t)) {
      wakeTopologyWaiters();
    }
  }

  public void deleteTopology(String name) {
    topology.deleteTopology(name);
  }

  /** A Node as placement sees it; pass only changes of what {@link TopologyNode} holds. */
  public void upsertNode(TopologyNode node) {
    if (topology.upsertNode(node)) {
      wakeTopologyWaiters();
    }
  }

  public void deleteNode(String name) {
    if (topology.deleteNode(name)) {
      wakeTopologyWaiters();
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
      wakeTopologyWaiters();
    }
  }

  /** The pod finished, was deleted or was never bound: its node capacity is free. */
  public void deleteBoundPod(String uid) {
    if (topology.deleteBoundPod(uid)) {
      wakeTopologyWaiters();
    }
  }

  public void upsertClusterQueue(ClusterQueue spec) {
    ClusterQueueState cq = queue(spec.name());
    if (spec.equals(cq.spec)) {
      return;
    }
    cq.spec = spec;
    treeStale = true;
    if (spec.stopPolicy() == StopPolicy.HoldAndDrain) {
      drain(
          cq,
          null,
          EvictionReason.ClusterQueueStopped,
          "ClusterQueue " + cq.name + " is stopped (HoldAndDrain)");
    }
  }

  /** Pending workloads stay, Inadmissible, until the ClusterQueue comes back. */
  public void deleteClusterQueue(String name) {
    ClusterQueueState cq = queues.get(name);
    if (cq != null) {
      cq.spec = null;
      cq.terminating = false;
      treeStale = true;
    }
  }

  /**
   * A ClusterQueue being deleted (deletionTimestamp set, finalizer still on) admits nothing new,
   * whatever its stopPolicy; what it holds keeps its quota until it finishes. A waiting preemptor
   * gives up its reservation. The flag is the operator's to set, from the object's metadata, and
   * stays until {@link #deleteClusterQueue} or until the operator clears it.
   */
  public void clusterQueueTerminating(String name, boolean terminating) {
    ClusterQueueState cq = queue(name);
    if (cq.terminating == terminating) {
      return;
    }
    cq.terminating = terminating;
    if (terminating) {
      cancelPreemption(cq);
    }
    cq.blocked = false;
    markDirty(cq);
  }

  public void upsertCohort(Cohort cohort) {
    if (cohort.equals(cohorts.put(cohort.name(), cohort))) {
      return;
    }
    treeStale = true;
  }

  public void deleteCohort(String name) {
    cohorts.remove(name);
    treeStale = true;
  }

  public void upsertLocalQueue(LocalQueue spec) {
    LocalQueueState lq = localQueue(spec.namespace(), spec.name());
    LocalQueue old = lq.spec();
    if (spec.equals(old)) {
      return;
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
    if (spec.stopPolicy() == StopPolicy.HoldAndDrain) {
      drain(
          queue(spec.clusterQueue()),
          lq.key(),
          EvictionReason.LocalQueueStopped,
          "LocalQueue " + lq.key() + " is stopped (HoldAndDrain)");
    }
    wakeTree(queue(spec.clusterQueue()));
  }

  /** Its pending workloads become Inadmissible; admitted ones keep their quota. */
  public void deleteLocalQueue(String namespace, String name) {
    LocalQueueState lq = localQueues.get(namespace + "/" + name);
    if (lq == null || lq.spec() == null) {
      return;
    }
    unroute(lq);
    lq.spec(null);
  }

  public void upsertNamespace(String name, Map<String, String> labels) {
    if (Map.copyOf(labels).equals(namespaces.put(name, Map.copyOf(labels)))) {
      return;
    }
    refreshNamespace(name);
  }

  public void deleteNamespace(String name) {
    namespaces.remove(name);
    refreshNamespace(name);
  }

  // ---------------------------------------------------------------- workloads

  /** Adds or updates a pending workload. Ignored while it holds quota (its spec is immutable). */
  public void upsertWorkload(Workload w) {
    if (admitted.containsKey(w.uid())) {
      return;
    }
    PendingWorkload existing = pending.get(w.uid());
    if (existing != null) {
      if (toWorkload(existing).equals(w)) {
        return;
      }
      removePending(existing);
    } else {
      LocalQueueState lq = unrouted.remove(w.uid());
      if (lq != null) {
        lq.unrouted().remove(w.uid());
      }
    }
    add(w);
  }

  /** A deleted or deactivated workload: forgotten; quota released if it held any. */
  public void removeWorkload(String uid) {
    PendingWorkload pw = pending.get(uid);
    if (pw != null) {
      removePending(pw);
    }
    LocalQueueState lq = unrouted.remove(uid);
    if (lq != null) {
      lq.unrouted().remove(uid);
    }
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
    expectedEvictions.remove(uid);
    AdmittedWorkload a = admitted.get(uid);
    if (a != null) {
      a.evictionRequested = true;
    }
  }

  /**
   * The operator finished evicting an admitted workload: quota is released and it is requeued with
   * the eviction time as its queue timestamp.
   */
  public boolean workloadEvicted(String uid, long now) {
    AdmittedWorkload a = admitted.get(uid);
    if (a == null) {
      return false;
    }
    release(uid);
    Workload w = a.workload;
    add(
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
    Map<Integer, Long> byFr = new LinkedHashMap<>();
    for (PodSetAssignment ps : podSets) {
      for (Map.Entry<String, String> f : ps.flavors().entrySet()) {
        int fr = frs.intern(f.getValue(), f.getKey());
        byFr.merge(fr, ps.resourceUsage().getOrDefault(f.getKey(), 0L), Long::sum);
      }
    }
    ClusterQueueState cq = queue(clusterQueue);
    if (cq.usage.length < frs.size()) {
      treeStale = true;
    }
    ensureTree();
    int[] ids = byFr.keySet().stream().mapToInt(Integer::intValue).toArray();
    long[] amounts = byFr.values().stream().mapToLong(Long::longValue).toArray();
    for (int i = 0; i < ids.length; i++) {
      addUsage(cq, ids[i], amounts[i]);
    }
    Admission admission =
        new Admission(
            w.uid(), w.namespace(), w.name(), clusterQueue, w.queueName(), podSets, admittedAt);
    topology.record(w.uid(), w.podSets(), podSets);
    hold(
        new AdmittedWorkload(
            w, clusterQueue, localQueue(w.namespace(), w.queueName()), ids, amounts, admission));
    if (cq.spec != null && cq.spec.stopPolicy() == StopPolicy.HoldAndDrain) {
      drain(
          cq,
          null,
          EvictionReason.ClusterQueueStopped,
          "ClusterQueue " + cq.name + " is stopped (HoldAndDrain)");
    }
    LocalQueueState lq = localQueues.get(w.localQueueKey());
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
    for (AdmittedWorkload victim : OverQuotaCheck.victims(this, admitted.get(w.uid()))) {
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
      expect(eviction);
      overQuota.add(eviction);
    }
    return overQuota;
  }

  /**
   * The operator could not write an admission: the quota is released and the workload requeued at
   * its old place (same queue timestamp).
   */
  public boolean rollback(Admission admission) {
    AdmittedWorkload a = admitted.get(admission.workloadUid());
    if (a == null) {
      return false;
    }
    release(admission.workloadUid());
    add(a.workload);
    return true;
  }

  // ---------------------------------------------------------------- the cycle

  /** Runs one admission cycle at time {@code now} (epoch millis, used as admission time). */
  /**
   * Runs one admission cycle at time {@code now} (epoch millis, used as admission time). The
   * result's evictions are every eviction still expected, not only the new ones. The cycle is one
   * transaction: if it throws, the engine is as it was before (see {@link CycleTransaction}).
   */
  public CycleResult runCycle(long now) {
    ensureTree();
    if (dirty.isEmpty() || admissionBlockedBy().isPresent()) {
      // Blocked: the queues stay dirty and are looked at once the blocker is ready or gone.
      return new CycleResult(List.of(), outstandingEvictions(), List.of(), this, 0)
          .withNewEvictions(takeFreshEvictions());
    }
    CycleTransaction tx = new CycleTransaction(this, preemptionOfVictim);
    journal = tx;
    try {
      return new AdmissionCycle(this, ordering, planner)
          .run(now)
          .withNewEvictions(takeFreshEvictions());
    } catch (RuntimeException | Error e) {
      tx.abort(preemptionOfVictim, expectedEvictions);
      freshEvictions.removeIf(ev -> !expectedEvictions.containsKey(ev.workloadUid()));
      throw e;
    } finally {
      journal = null;
    }
  }

  /** Every eviction asked for and not yet seen done, oldest first. */
  List<Eviction> outstandingEvictions() {
    return List.copyOf(expectedEvictions.values());
  }

  private List<Eviction> takeFreshEvictions() {
    List<Eviction> out = List.copyOf(freshEvictions);
    freshEvictions.clear();
    return out;
  }

  // ---------------------------------------------------------------- waitForPodsReady

  /**
   * blockAdmission on: while a workload holding quota does not have its pods ready, no other is
   * admitted (and nothing preempts for one); a cycle admits at most one workload.
   */
  public void blockAdmissionUntilPodsReady(boolean on) {
    podsReady.enable(on);
  }

  /** The workload's PodsReady condition, as the operator observed it. */
  public void podsReady(String uid, boolean ready) {
    podsReady.ready(uid, ready, admitted.containsKey(uid));
  }

  /** The workload holding quota whose pods are not ready, while blockAdmission holds the rest. */
  public Optional<String> admissionBlockedBy() {
    return podsReady.blocker();
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
    flavors.values().forEach(copy::upsertResourceFlavor);
    topology.copyTo(copy.topology);
    cohorts.values().forEach(copy::upsertCohort);
    namespaces.forEach(copy::upsertNamespace);
    for (ClusterQueueState cq : queues.values()) {
      if (cq.spec != null) {
        copy.upsertClusterQueue(cq.spec);
        copy.clusterQueueTerminating(cq.name, cq.terminating);
      }
    }
    for (LocalQueueState lq : localQueues.values()) {
      if (lq.spec() != null) {
        copy.upsertLocalQueue(lq.spec());
      }
    }
    List<AdmittedWorkload> held = new ArrayList<>(admitted.values());
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
        copy.admitted.get(a.workload.uid()).evictionRequested = true;
      }
    }
    for (PendingWorkload pw : pending.values()) {
      copy.upsertWorkload(toWorkload(pw));
    }
    return copy;
  }

  // ---------------------------------------------------------------- queries

  public Optional<Admission> admission(String uid) {
    AdmittedWorkload a = admitted.get(uid);
    return a == null ? Optional.empty() : Optional.of(a.admission);
  }

  public boolean isPending(String uid) {
    return pending.containsKey(uid) || unrouted.containsKey(uid);
  }

  public int pendingCount() {
    return pending.size() + unrouted.size();
  }

  public int admittedCount() {
    return admitted.size();
  }

  /** Status and metrics of queues and pending workloads (read-only, same thread). */
  public StatusView status() {
    return status;
  }

  /** Free node capacity of each topology-aware flavor, by domain (read-only, same thread). */
  public Map<String, NodeInventory> topologyInventories() {
    return topology.inventories();
  }

  // ---------------------------------------------------------------- internals used by the cycle

  Map<String, ClusterQueueState> queues() {
    return queues;
  }

  FlavorResources flavorResources() {
    return frs;
  }

  List<ClusterQueueState> takeDirty() {
    List<ClusterQueueState> out = new ArrayList<>(dirty);
    dirty.clear();
    for (ClusterQueueState cq : out) {
      cq.dirty = false;
    }
    return out;
  }

  /**
   * Step 5, first half: places the topology-aware podSets of a Fit entry on their flavors' nodes.
   * On success the placements are held for the workload; {@link #admit} must follow.
   */
  TopologyState.Result placeTopology(Entry e) {
    TopologyState.Result placed =
        topology.place(e.workloadUid(), e.bucket.podSets(), podSetAssignments(e.assignment));
    if (placed.refused() != null) {
      topologyWaiters.add(e.queue);
    } else if (journal != null) {
      journal.placed(e.workloadUid());
    }
    return placed;
  }

  /**
   * Before a Preempt entry evicts anyone: why its topology-aware podSets could not be placed even
   * once these victims are gone, or null. Null also when a victim holds no placement: its pods are
   * bound pods the engine cannot tie to it, so what its eviction frees is unknown until it happens.
   */
  Explanation topologyRefusalAfterEvicting(Entry e, List<PreemptionPlanner.Victim> victims) {
    List<String> uids = new ArrayList<>(victims.size());
    for (PreemptionPlanner.Victim v : victims) {
      if (!topology.holdsPlacements(v.uid())) {
        return null;
      }
      uids.add(v.uid());
    }
    Explanation why =
        topology.refusalWithout(uids, e.bucket.podSets(), podSetAssignments(e.assignment));
    if (why != null) {
      topologyWaiters.add(e.queue);
    }
    return why;
  }

  private static List<PodSetAssignment> podSetAssignments(Assignment a) {
    List<PodSetAssignment> podSets = new ArrayList<>(a.podSets().length);
    for (Assignment.PodSetFlavors ps : a.podSets()) {
      podSets.add(podSetAssignment(ps));
    }
    return podSets;
  }

  /** Step 5: reserves quota for a Fit entry, placed by {@link #placeTopology}: an Admission. */
  Admission admit(Entry e, long now, List<PodSetAssignment> podSets) {
    ClusterQueueState cq = e.queue;
    Assignment a = e.assignment;
    for (int i = 0; i < a.frs().length; i++) {
      QuotaTree.addUsage(cq.node, a.frs()[i], a.usage()[i]);
    }
    Workload w = toWorkload(e.workload);
    cq.queue.remove(e.workload);
    pending.remove(w.uid());
    Admission admission =
        new Admission(w.uid(), w.namespace(), w.name(), cq.name, w.queueName(), podSets, now);
    AdmittedWorkload held =
        new AdmittedWorkload(w, cq.name, e.bucket.localQueue(), a.frs(), a.usage(), admission);
    hold(held);
    if (journal != null) {
      journal.admitted(held);
    }
    return admission;
  }

  /**
   * Undoes {@link #admit} for an aborted cycle: the workload is pending again at its old place.
   * Usage is not touched here; the transaction restores it as a whole.
   */
  void unadmit(AdmittedWorkload a) {
    String uid = a.workload.uid();
    admitted.remove(uid);
    podsReady.released(uid);
    ClusterQueueState cq = queues.get(a.clusterQueue);
    cq.admitted.remove(uid);
    cq.admittedPriorityRemoved(a.workload.priority());
    a.localQueue.admittedDelta(-1);
    topology.release(uid);
    add(a.workload);
  }

  /** Gives back a topology placement made in an aborted cycle (no-op once released). */
  void releasePlacement(String uid) {
    topology.release(uid);
  }

  /** Rebuilds the quota tree from the ClusterQueues' usage; every queue competes again. */
  void rebuildTree() {
    treeStale = true;
    ensureTree();
  }

  private static PodSetAssignment podSetAssignment(Assignment.PodSetFlavors ps) {
    if (ps.resources.length == 1) {
      // The common case (one resource): immutable single-entry maps, no hashing.
      String r = ps.resources[0];
      return new PodSetAssignment(
          ps.name,
          Map.of(r, ps.flavors[0]),
          Map.of(r, ps.usage[0]),
          ps.count,
          ps.borrowed[0] > 0 ? Map.of(r, ps.borrowed[0]) : Map.of());
    }
    Map<String, String> fl = new HashMap<>();
    Map<String, Long> use = new HashMap<>();
    Map<String, Long> borrowed = new HashMap<>();
    for (int i = 0; i < ps.resources.length; i++) {
      fl.put(ps.resources[i], ps.flavors[i]);
      use.put(ps.resources[i], ps.usage[i]);
      if (ps.borrowed[i] > 0) {
        borrowed.put(ps.resources[i], ps.borrowed[i]);
      }
    }
    return new PodSetAssignment(ps.name, fl, use, ps.count, borrowed);
  }

  /**
   * Asks for a victim's eviction on behalf of a preemptor, who from now on keeps its place until
   * the victim's quota is released. Null when the victim is gone or already being evicted.
   */
  Eviction requestPreemption(PreemptionPlanner.Victim victim, Entry preemptor) {
    AdmittedWorkload a = admitted.get(victim.uid());
    if (a == null || a.evictionRequested) {
      return null;
    }
    a.evictionRequested = true;
    if (journal != null) {
      journal.evictionMarked(a);
    }
    ClusterQueueState cq = preemptor.queue;
    if (cq.preemption == null || !cq.preemption.preemptorUid.equals(preemptor.workloadUid())) {
      cancelPreemption(cq);
      cq.preemption = new PendingPreemption(preemptor.workloadUid(), cq);
    }
    cq.preemption.outstanding.add(victim.uid());
    preemptionOfVictim.put(victim.uid(), cq.preemption);
    Eviction eviction =
        new Eviction(
            victim.uid(),
            a.clusterQueue,
            EvictionReason.Preempted,
            "preempted to admit "
                + preemptor.workload.name()
                + " in ClusterQueue "
                + preemptor.clusterQueue(),
            victim.reason(),
            preemptor.workloadUid());
    expect(eviction);
    return eviction;
  }

  private void expect(Eviction eviction) {
    boolean added = expectedEvictions.putIfAbsent(eviction.workloadUid(), eviction) == null;
    if (added) {
      freshEvictions.add(eviction);
    }
    if (added && journal != null) {
      journal.expectationAdded(eviction.workloadUid());
    }
  }

  /**
   * The preemptor no longer waits (admitted, gone, or its reservation is void): reserved quota of
   * released victims is freed and victims still running are released as usual later.
   */
  void cancelPreemption(ClusterQueueState cq) {
    PendingPreemption p = cq.preemption;
    if (p == null) {
      return;
    }
    cq.preemption = null;
    for (String v : p.outstanding) {
      preemptionOfVictim.remove(v);
    }
    freeReservation(p);
  }

  /**
   * Reserves for a preemptor that now waits the part of its request that is free right now, so that
   * nobody takes it while its victims stop. Within available quota: no limit is exceeded.
   */
  void reserveForPreemptor(ClusterQueueState cq, Assignment a) {
    PendingPreemption p = cq.preemption;
    if (p == null || p.reserved.length > 0) {
      return;
    }
    int[] frs = a.frs();
    long[] amounts = new long[frs.length];
    for (int i = 0; i < frs.length; i++) {
      amounts[i] = Math.min(a.usage()[i], Math.max(0, QuotaTree.available(cq.node, frs[i])));
      addUsage(cq, frs[i], amounts[i]);
    }
    p.reservedFrs = frs;
    p.reserved = amounts;
  }

  /** Frees what was reserved for a preemptor (its own reservation and released victims' quota). */
  private void freeReservation(PendingPreemption p) {
    if (p.held.isEmpty() && p.reserved.length == 0) {
      return;
    }
    ensureTree();
    for (AdmittedWorkload h : p.held) {
      ClusterQueueState hq = queues.get(h.clusterQueue);
      for (int i = 0; i < h.frs.length; i++) {
        removeUsage(hq, h.frs[i], h.usage[i]);
      }
      wakeTree(hq);
    }
    p.held.clear();
    for (int i = 0; i < p.reservedFrs.length; i++) {
      removeUsage(p.queue, p.reservedFrs[i], p.reserved[i]);
    }
    p.reservedFrs = new int[0];
    p.reserved = new long[0];
    wakeTree(p.queue);
  }

  /** The ClusterQueues of cq's cohort tree (cq must be active). */
  List<ClusterQueueState> treeQueues(ClusterQueueState cq) {
    return treeQueues.get(cq.node.treeIndex());
  }

  /** Puts a ClusterQueue in its tree's wake list: a release in the tree brings it back. */
  void registerWake(ClusterQueueState cq) {
    if (!cq.waking && cq.node != null && cq.node.active()) {
      wakeLists.get(cq.node.treeIndex()).add(cq);
      cq.waking = true;
    }
  }

  // ---------------------------------------------------------------- private

  private ClusterQueueState queue(String name) {
    ClusterQueueState cq = queues.get(name);
    if (cq == null) {
      cq = new ClusterQueueState(name);
      cq.usage = new long[frs.size()];
      queues.put(name, cq);
    }
    return cq;
  }

  private LocalQueueState localQueue(String namespace, String name) {
    return localQueues.computeIfAbsent(
        namespace + "/" + name, k -> new LocalQueueState(namespace, name));
  }

  void markDirty(ClusterQueueState cq) {
    if (!cq.dirty) {
      cq.dirty = true;
      dirty.add(cq);
    }
  }

  /** Something that could change the answer happened in the tree of cq: parked work comes back. */
  private void wakeTree(ClusterQueueState cq) {
    if (treeStale || cq.node == null || !cq.node.active()) {
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
  private void wakeTopologyWaiters() {
    for (ClusterQueueState cq : topologyWaiters) {
      cq.blocked = false;
      cq.queue.unparkAll();
      markDirty(cq);
    }
    topologyWaiters.clear();
  }

  void ensureTree() {
    if (!treeStale) {
      return;
    }
    for (ClusterQueueState cq : queues.values()) {
      if (cq.spec != null) {
        CompiledQueue.internAll(cq.spec.resourceGroups(), frs);
      }
    }
    for (Cohort c : cohorts.values()) {
      CompiledQueue.internAll(c.resourceGroups(), frs);
    }
    List<ClusterQueue> specs = new ArrayList<>();
    for (ClusterQueueState cq : queues.values()) {
      if (cq.usage.length < frs.size()) {
        cq.usage = Arrays.copyOf(cq.usage, frs.size());
      }
      if (cq.spec == null) {
        cq.compiled = null;
      } else if (cq.compiled == null || !cq.compiled.upToDate(cq.spec, flavors)) {
        cq.compiled = new CompiledQueue(cq.spec, flavors, frs);
      }
      if (cq.spec != null) {
        specs.add(cq.spec);
      }
    }
    tree = QuotaTree.build(specs, cohorts.values(), frs, name -> queues.get(name).usage);
    wakeLists = new ArrayList<>();
    treeQueues = new ArrayList<>();
    for (QuotaNode root : tree.roots()) {
      wakeLists.add(new ArrayList<>());
      List<ClusterQueueState> members = new ArrayList<>(root.clusterQueues().size());
      for (String name : root.clusterQueues()) {
        members.add(queues.get(name));
      }
      treeQueues.add(members);
    }
    treeStale = false;
    // A structural change can change any answer: everything parked competes again.
    for (ClusterQueueState cq : queues.values()) {
      cq.node = cq.spec == null ? null : tree.clusterQueue(cq.name);
      cq.waking = false;
      cq.blocked = false;
      cq.queue.unparkAll();
      markDirty(cq);
    }
    for (LocalQueueState lq : localQueues.values()) {
      refreshHold(lq);
    }
  }

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
    ClusterQueueState cq = queue(lq.spec().clusterQueue());
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
    PendingQueue.hold(lq, why);
    cq.blocked = false;
    markDirty(cq);
  }

  private boolean namespaceMatches(ClusterQueue spec, String namespace) {
    return spec.namespaceSelector() != null
        && spec.namespaceSelector().matches(namespaces.getOrDefault(namespace, Map.of()));
  }

  private void add(Workload w) {
    LocalQueueState lq = localQueue(w.namespace(), w.queueName());
    if (lq.spec() == null) {
      lq.unrouted().put(w.uid(), w);
      unrouted.put(w.uid(), lq);
      return;
    }
    route(w, lq);
  }

  private void route(Workload w, LocalQueueState lq) {
    ClusterQueueState cq = queue(lq.spec().clusterQueue());
    PendingWorkload pw = new PendingWorkload(w.uid(), w.name(), w.queueTimestamp());
    Bucket b = cq.queue.add(pw, lq, w.priority(), w.podSets());
    pending.put(w.uid(), pw);
    if (b.state() != Bucket.State.ACTIVE) {
      return;
    }
    Bucket head = cq.queue.headBucket();
    if (head == b && b.front() == pw) {
      // A new head: a blocked queue must look again.
      cq.blocked = false;
      markDirty(cq);
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
    ClusterQueueState cq = queues.get(b.queue().clusterQueue());
    boolean wasHead = cq.queue.headBucket() == b && b.front() == pw;
    cq.queue.remove(pw);
    pending.remove(pw.uid());
    if (cq.preemption != null && cq.preemption.preemptorUid.equals(pw.uid())) {
      cancelPreemption(cq);
      cq.blocked = false;
      markDirty(cq);
    }
    if (wasHead) {
      cq.blocked = false;
      markDirty(cq);
    }
  }

  private Workload toWorkload(PendingWorkload pw) {
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

  private void hold(AdmittedWorkload a) {
    admitted.put(a.workload.uid(), a);
    podsReady.holding(a.workload.uid());
    ClusterQueueState cq = queue(a.clusterQueue);
    cq.admitted.put(a.workload.uid(), a);
    cq.admittedPriorityAdded(a.workload.priority());
    a.localQueue.admittedDelta(1);
  }

  private boolean release(String uid) {
    AdmittedWorkload a = admitted.remove(uid);
    if (a == null) {
      return false;
    }
    expectedEvictions.remove(uid);
    podsReady.released(uid);
    if (topology.release(uid)) {
      wakeTopologyWaiters();
    }
    ensureTree();
    ClusterQueueState cq = queues.get(a.clusterQueue);
    cq.admitted.remove(uid);
    cq.admittedPriorityRemoved(a.workload.priority());
    a.localQueue.admittedDelta(-1);
    PendingPreemption p = preemptionOfVictim.remove(uid);
    if (p != null) {
      p.outstanding.remove(uid);
      if (!p.outstanding.isEmpty()) {
        // Reserved for the preemptor until its last victim is gone: no one else may take it.
        p.held.add(a);
        return true;
      }
      freeReservation(p);
      p.ready = true;
      wakeTree(p.queue);
    }
    for (int i = 0; i < a.frs.length; i++) {
      removeUsage(cq, a.frs[i], a.usage[i]);
    }
    wakeTree(cq);
    return true;
  }

  private void addUsage(ClusterQueueState cq, int fr, long amount) {
    if (cq.usage.length <= fr) {
      cq.usage = Arrays.copyOf(cq.usage, frs.size());
      treeStale = true;
    }
    if (cq.node != null && !treeStale) {
      QuotaTree.addUsage(cq.node, fr, amount);
    } else {
      cq.usage[fr] += amount;
    }
  }

  private void removeUsage(ClusterQueueState cq, int fr, long amount) {
    if (cq.node != null && !treeStale) {
      QuotaTree.removeUsage(cq.node, fr, amount);
    } else {
      cq.usage[fr] -= amount;
    }
  }

  private void drain(
      ClusterQueueState cq, String localQueueKey, EvictionReason reason, String message) {
    for (AdmittedWorkload a : cq.admitted.values()) {
      if (!a.evictionRequested
          && (localQueueKey == null || localQueueKey.equals(a.localQueue.key()))) {
        a.evictionRequested = true;
        expect(new Eviction(a.workload.uid(), cq.name, reason, message));
      }
    }
  }
}
