package dev.berth.engine;

import dev.berth.engine.flavor.CompiledQueue;
import dev.berth.engine.model.ClusterQueue;
import dev.berth.engine.model.Cohort;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.Workload;
import dev.berth.engine.queue.LocalQueueState;
import dev.berth.engine.quota.FlavorResources;
import dev.berth.engine.quota.QuotaNode;
import dev.berth.engine.quota.QuotaTree;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What holds quota and what quota there is (Kueue's scheduler cache and its snapshot): the flavor,
 * ClusterQueue and Cohort specs, the cohort tree built from them, the admitted workloads with their
 * usage, and the reservations of preemptors waiting for their victims. The tree is the cycle's
 * snapshot: the engine is single-threaded, so a cycle that applies its decisions to it in order
 * needs no copy (the {@link CycleTransaction} restores it if the cycle throws).
 *
 * <p>It knows nothing of pending work; when quota comes free or the tree is rebuilt it tells the
 * pending side ({@link Events}), which decides what to wake.
 */
final class QuotaStore {
  /** What the pending side must hear, since the answers of waiting workloads may change. */
  interface Events {
    /** Quota came free in the cohort tree of {@code cq}. */
    void freed(ClusterQueueState cq);

    /** The tree was rebuilt from changed specs: any answer may have changed. */
    void rebuilt();
  }

  private final Map<String, ResourceFlavor> flavors = new TreeMap<>();
  private final Map<String, ClusterQueueState> queues = new TreeMap<>();
  private final Map<String, Cohort> cohorts = new TreeMap<>();
  private final Map<String, AdmittedWorkload> admitted = new HashMap<>();

  /** Admitted workloads marked {@link AdmittedWorkload#onIdleCapacity}. */
  private int onIdleCapacity;

  private final FlavorResources frs = new FlavorResources();
  private final PodsReadyGate podsReady = new PodsReadyGate();
  private Events events;

  private QuotaTree tree;

  /** Per cohort tree: its ClusterQueues (for preemption and the over-quota check). */
  private List<List<ClusterQueueState>> treeQueues = new ArrayList<>();

  /** A ClusterQueue, Cohort or ResourceFlavor changed: rebuild the tree before using it. */
  private boolean treeStale = true;

  /** Victim UID to the preemptor waiting for it. */
  private final Map<String, PendingPreemption> preemptionOfVictim = new HashMap<>();

  void listen(Events events) {
    this.events = events;
  }

  // ---------------------------------------------------------------- specs

  /** Returns false when the flavor is unchanged (an informer resync). */
  boolean upsertFlavor(ResourceFlavor flavor) {
    if (flavor.equals(flavors.put(flavor.name(), flavor))) {
      return false;
    }
    treeStale = true;
    return true;
  }

  void deleteFlavor(String name) {
    flavors.remove(name);
    treeStale = true;
  }

  /** Returns false when the spec is unchanged. */
  boolean upsertClusterQueue(ClusterQueue spec) {
    ClusterQueueState cq = queue(spec.name());
    if (spec.equals(cq.spec)) {
      return false;
    }
    cq.spec = spec;
    treeStale = true;
    return true;
  }

  void deleteClusterQueue(String name) {
    ClusterQueueState cq = queues.get(name);
    if (cq != null) {
      cq.spec = null;
      cq.terminating = false;
      treeStale = true;
    }
  }

  void upsertCohort(Cohort cohort) {
    if (!cohort.equals(cohorts.put(cohort.name(), cohort))) {
      treeStale = true;
    }
  }

  void deleteCohort(String name) {
    cohorts.remove(name);
    treeStale = true;
  }

  /** The ClusterQueue's state, created (with no spec) when first named. */
  ClusterQueueState queue(String name) {
    ClusterQueueState cq = queues.get(name);
    if (cq == null) {
      cq = new ClusterQueueState(name);
      cq.usage = new long[frs.size()];
      queues.put(name, cq);
    }
    return cq;
  }

  /** The ClusterQueue's state, or null when it was never named. */
  ClusterQueueState find(String name) {
    return queues.get(name);
  }

  Map<String, ClusterQueueState> queues() {
    return queues;
  }

  Map<String, ResourceFlavor> flavors() {
    return flavors;
  }

  Collection<Cohort> cohorts() {
    return cohorts.values();
  }

  Cohort cohort(String name) {
    return cohorts.get(name);
  }

  FlavorResources flavorResources() {
    return frs;
  }

  // ---------------------------------------------------------------- the tree

  boolean treeStale() {
    return treeStale;
  }

  /** The current tree, rebuilt first if a spec changed. */
  QuotaTree tree() {
    ensureTree();
    return tree;
  }

  /** The ClusterQueues of cq's cohort tree (cq must be active). */
  List<ClusterQueueState> treeQueues(ClusterQueueState cq) {
    return treeQueues.get(cq.node.treeIndex());
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
    treeQueues = new ArrayList<>();
    for (QuotaNode root : tree.roots()) {
      List<ClusterQueueState> members = new ArrayList<>(root.clusterQueues().size());
      for (String name : root.clusterQueues()) {
        members.add(queues.get(name));
      }
      treeQueues.add(members);
    }
    treeStale = false;
    for (ClusterQueueState cq : queues.values()) {
      cq.node = cq.spec == null ? null : tree.clusterQueue(cq.name);
    }
    events.rebuilt();
  }

  /** Rebuilds the tree from the ClusterQueues' usage (after an aborted cycle restored it). */
  void rebuildTree() {
    treeStale = true;
    ensureTree();
  }

  void addUsage(ClusterQueueState cq, int fr, long amount) {
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

  void removeUsage(ClusterQueueState cq, int fr, long amount) {
    if (cq.node != null && !treeStale) {
      QuotaTree.removeUsage(cq.node, fr, amount);
    } else {
      cq.usage[fr] -= amount;
    }
  }

  // ---------------------------------------------------------------- admitted workloads

  AdmittedWorkload admitted(String uid) {
    return admitted.get(uid);
  }

  Collection<AdmittedWorkload> admitted() {
    return admitted.values();
  }

  int admittedCount() {
    return admitted.size();
  }

  /** How many admitted workloads run on idle capacity: none, and no preemptor looks for them. */
  int onIdleCapacityCount() {
    return onIdleCapacity;
  }

  /** Marks an admitted workload as running on idle capacity (at admission, or read back). */
  void onIdleCapacity(AdmittedWorkload a, String why) {
    if (a.onIdleCapacity == null && admitted.get(a.workload.uid()) == a) {
      onIdleCapacity++;
      queue(a.clusterQueue).onIdleCapacity++;
    }
    a.onIdleCapacity = why;
  }

  PodsReadyGate podsReady() {
    return podsReady;
  }

  /**
   * Records an admission the engine did not decide (restart, another leader's write), by its stored
   * flavors and usage, whether it fits or not: it is real.
   */
  AdmittedWorkload record(
      Workload w,
      String clusterQueue,
      LocalQueueState localQueue,
      List<PodSetAssignment> podSets,
      long admittedAt) {
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
    Admission admission =
        new Admission(
            w.uid(), w.namespace(), w.name(), clusterQueue, w.queueName(), podSets, admittedAt);
    AdmittedWorkload a = new AdmittedWorkload(w, clusterQueue, localQueue, ids, amounts, admission);
    admit(a);
    return a;
  }

  /** Takes the workload's usage and holds it as admitted. */
  void admit(AdmittedWorkload a) {
    ClusterQueueState cq = queue(a.clusterQueue);
    for (int i = 0; i < a.frs.length; i++) {
      addUsage(cq, a.frs[i], a.usage[i]);
    }
    hold(a);
  }

  /** Holds an admitted workload whose usage is already counted. */
  private void hold(AdmittedWorkload a) {
    admitted.put(a.workload.uid(), a);
    podsReady.holding(a.workload.uid());
    ClusterQueueState cq = queue(a.clusterQueue);
    cq.admitted.put(a.workload.uid(), a);
    cq.admittedPriorityAdded(a.workload.priority());
    a.localQueue.admittedDelta(1);
    if (a.onIdleCapacity != null) {
      onIdleCapacity++;
      cq.onIdleCapacity++;
    }
  }

  /**
   * Forgets an admitted workload without giving back its usage: an aborted cycle's tentative
   * admission, whose usage the transaction restores as a whole.
   */
  void unhold(AdmittedWorkload a) {
    String uid = a.workload.uid();
    admitted.remove(uid);
    podsReady.released(uid);
    ClusterQueueState cq = queues.get(a.clusterQueue);
    cq.admitted.remove(uid);
    cq.admittedPriorityRemoved(a.workload.priority());
    a.localQueue.admittedDelta(-1);
    if (a.onIdleCapacity != null) {
      onIdleCapacity--;
      cq.onIdleCapacity--;
    }
  }

  /**
   * Releases a workload's quota; null when it held none. A preemptor's victim keeps its quota
   * counted where it was until the preemptor's last victim is gone.
   */
  AdmittedWorkload release(String uid) {
    AdmittedWorkload a = admitted.get(uid);
    if (a == null) {
      return null;
    }
    ensureTree();
    unhold(a);
    ClusterQueueState cq = queues.get(a.clusterQueue);
    PendingPreemption p = preemptionOfVictim.remove(uid);
    if (p != null) {
      p.outstanding.remove(uid);
      if (!p.outstanding.isEmpty()) {
        // Reserved for the preemptor until its last victim is gone: no one else may take it.
        p.held.add(a);
        return a;
      }
      freeReservation(p);
      p.ready = true;
      events.freed(p.queue);
    }
    for (int i = 0; i < a.frs.length; i++) {
      removeUsage(cq, a.frs[i], a.usage[i]);
    }
    events.freed(cq);
    return a;
  }

  // ---------------------------------------------------------------- reservations

  /** Victim UID to the preemptor waiting for it (the transaction saves and restores it). */
  Map<String, PendingPreemption> preemptionOfVictim() {
    return preemptionOfVictim;
  }

  /** From now on cq's preemptor waits for this victim (replacing another preemptor of cq). */
  void awaitVictim(ClusterQueueState cq, String preemptorUid, String victimUid) {
    if (cq.preemption == null || !cq.preemption.preemptorUid.equals(preemptorUid)) {
      cancelPreemption(cq);
      cq.preemption = new PendingPreemption(preemptorUid, cq);
    }
    cq.preemption.outstanding.add(victimUid);
    preemptionOfVictim.put(victimUid, cq.preemption);
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
  void reserveForPreemptor(ClusterQueueState cq, int[] reservedFrs, long[] request) {
    PendingPreemption p = cq.preemption;
    if (p == null || p.reserved.length > 0) {
      return;
    }
    long[] amounts = new long[reservedFrs.length];
    for (int i = 0; i < reservedFrs.length; i++) {
      amounts[i] = Math.min(request[i], Math.max(0, QuotaTree.available(cq.node, reservedFrs[i])));
      addUsage(cq, reservedFrs[i], amounts[i]);
    }
    p.reservedFrs = reservedFrs;
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
      events.freed(hq);
    }
    p.held.clear();
    for (int i = 0; i < p.reservedFrs.length; i++) {
      removeUsage(p.queue, p.reservedFrs[i], p.reserved[i]);
    }
    p.reservedFrs = new int[0];
    p.reserved = new long[0];
    events.freed(p.queue);
  }
}
