package dev.berth.operator.admission;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Cohort;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.PodSetAssignment;
import dev.berth.engine.capacity.CapacityInventory;
import dev.berth.engine.quota.Quantity;
import dev.berth.engine.usage.UsageLedger;
import dev.berth.operator.capacity.CapacityTranslator;
import dev.berth.operator.kube.LeanItemStore;
import dev.berth.operator.kube.SharedVersions;
import dev.berth.operator.usage.UsageTranslator;
import dev.berth.operator.usage.WorkloadPods;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the loop knows of the cluster: the engine, fed from observations, and the latest API object
 * of each kind (a workload's admission is written against the version the engine decided on).
 * Mutated only on the loop thread; the maps are concurrent so publishers may read them.
 */
public final class ClusterState {
  private static final Logger log = LoggerFactory.getLogger(ClusterState.class);

  private final AdmissionEngine engine;

  /** Node capacity and pod requests for capacity accounting (docs/capacity.md). */
  private final CapacityInventory capacity = new CapacityInventory();

  /** Quota reservations of workloads, for the usage ledger; its events wait for the publisher. */
  private final UsageLedger usage = new UsageLedger();

  private final List<UsageLedger.Event> usageEvents = new ArrayList<>();
  private final WorkloadPods workloadPods = new WorkloadPods();
  private final Map<String, String> costCentres = new ConcurrentHashMap<>();
  final Map<String, Workload> workloads = new ConcurrentHashMap<>();
  final Map<String, ClusterQueue> clusterQueues = new ConcurrentHashMap<>();
  final Map<String, LocalQueue> localQueues = new ConcurrentHashMap<>();
  final Map<String, ResourceFlavor> flavors = new ConcurrentHashMap<>();
  final Map<String, Cohort> cohorts = new ConcurrentHashMap<>();

  /** AdmissionChecks, and the quota-reserved workloads waiting on them. */
  private final AdmissionCheckTracker checks = new AdmissionCheckTracker();

  /** Admitted workloads with a maximum execution time: when each uses it up (epoch millis). */
  private final Map<String, Long> execDeadlines = new ConcurrentHashMap<>();

  /** Requeued workloads kept out of the engine until their requeueAt. */
  private final RequeueHold holds = new RequeueHold();

  /** waitForPodsReady: admitted workloads' deadlines for ready pods. */
  private PodsReadyTracker podsReady =
      new PodsReadyTracker(dev.berth.operator.WaitForPodsReady.DEFAULT);

  /** Queues whose status may have changed since the status publisher last looked. */
  private final TouchedQueues touched = new TouchedQueues();

  /** The Workloads that may hold quota through each LocalQueue (its usage). */
  private final LocalQueueHolders holders = new LocalQueueHolders();

  /** Keys (Workload UIDs among them) with one of the loop's writes on the wire. */
  private final java.util.Set<String> writing = new java.util.HashSet<>();

  /** The newest watch event of a Workload whose write is on the wire, applied after its result. */
  private final Map<String, Workload> heldEvents = new java.util.HashMap<>();

  private final java.util.Set<String> deletedWhileWriting = new java.util.HashSet<>();

  /** Admitted workloads set to spec.active=false, to be evicted by the next write-out. */
  final java.util.Set<String> deactivated = new java.util.LinkedHashSet<>();

  /**
   * Bootstrap is done: admissions seen from now on that the engine did not decide are checked
   * against the quota. Before, they are what a previous leader left, recorded as they are.
   */
  private volatile boolean checkObservedAdmissions;

  /** Admissions seen on the API server that left their quota exceeded, to be reported. */
  private final List<OverQuota> overQuota = new ArrayList<>();

  /** An observed admission that did not fit, and the evictions asked for to fit again. */
  public record OverQuota(Workload workload, List<dev.berth.engine.Eviction> evictions) {}

  /** The instances the informers keep, shared with them (see SharedVersions). */
  private final SharedVersions versions;

  public ClusterState(AdmissionEngine engine) {
    this(engine, new SharedVersions());
  }

  public ClusterState(AdmissionEngine engine, SharedVersions versions) {
    this.engine = engine;
    this.versions = versions;
  }

  public AdmissionEngine engine() {
    return engine;
  }

  /** waitForPodsReady's settings (before the first observation). */
  public ClusterState waitForPodsReady(dev.berth.operator.WaitForPodsReady settings) {
    podsReady = new PodsReadyTracker(settings);
    engine.blockAdmissionUntilPodsReady(settings.enable() && settings.blockAdmission());
    return this;
  }

  public PodsReadyTracker podsReady() {
    return podsReady;
  }

  /** The engine's form, ordered after a PodsReadyTimeout requeue as the settings say. */
  private dev.berth.engine.model.Workload model(Workload wl) {
    return ModelTranslator.workload(
        wl,
        podsReady.settings().timestamp()
            == dev.berth.operator.WaitForPodsReady.RequeuingTimestamp.Creation);
  }

  public void flavor(ResourceFlavor flavor) {
    touched.all();
    flavors.put(flavor.getMetadata().getName(), flavor);
    engine.upsertResourceFlavor(ModelTranslator.flavor(flavor));
  }

  public void flavorDeleted(String name) {
    touched.all();
    flavors.remove(name);
    engine.deleteResourceFlavor(name);
  }

  /**
   * A ClusterQueue as stored now, fed to the engine. One with a deletionTimestamp is terminating:
   * it admits nothing new whatever its stopPolicy, until it is gone.
   */
  public void clusterQueue(ClusterQueue cq) {
    String name = cq.getMetadata().getName();
    touched.all();
    clusterQueues.put(name, cq);
    engine.upsertClusterQueue(ModelTranslator.clusterQueue(cq));
    engine.clusterQueueTerminating(name, cq.getMetadata().getDeletionTimestamp() != null);
  }

  /**
   * The reply of the operator's own status write: only the stored version is kept (later writes
   * carry its resourceVersion). The spec cannot change through the status subresource, and what the
   * engine was fed stays as the reconciler chose it.
   */
  public void clusterQueueWritten(ClusterQueue cq) {
    clusterQueues.computeIfPresent(cq.getMetadata().getName(), (k, v) -> cq);
  }

  /** As {@link #clusterQueueWritten}, for a LocalQueue's status write. */
  public void localQueueWritten(LocalQueue lq) {
    String key = key(lq.getMetadata().getNamespace(), lq.getMetadata().getName());
    localQueues.computeIfPresent(key, (k, v) -> lq);
  }

  /** As {@link #clusterQueueWritten}, for a Cohort's status write. */
  public void cohortWritten(Cohort cohort) {
    cohorts.computeIfPresent(cohort.getMetadata().getName(), (k, v) -> cohort);
  }

  /** A ClusterQueue being deleted whose spec is not accepted: it admits nothing while it goes. */
  public void clusterQueueTerminating(String name) {
    touched.all();
    engine.clusterQueueTerminating(name, true);
  }

  public void clusterQueueDeleted(String name) {
    touched.all();
    clusterQueues.remove(name);
    engine.deleteClusterQueue(name);
  }

  public void cohort(Cohort cohort) {
    touched.all();
    cohorts.put(cohort.getMetadata().getName(), cohort);
    engine.upsertCohort(ModelTranslator.cohort(cohort));
  }

  public void cohortDeleted(String name) {
    touched.all();
    cohorts.remove(name);
    engine.deleteCohort(name);
  }

  public void localQueue(LocalQueue lq) {
    touched.all();
    localQueues.put(key(lq.getMetadata().getNamespace(), lq.getMetadata().getName()), lq);
    engine.upsertLocalQueue(ModelTranslator.localQueue(lq));
  }

  public void localQueueDeleted(String namespace, String name) {
    touched.all();
    localQueues.remove(key(namespace, name));
    engine.deleteLocalQueue(namespace, name);
  }

  public void topology(dev.berth.api.v1beta1.Topology topology) {
    try {
      engine.upsertTopology(TopologyTranslator.topology(topology));
    } catch (IllegalArgumentException e) {
      // Stored around the webhook: its flavors' workloads wait with a reason naming the Topology.
      log.warn("Topology {} ignored: {}", topology.getMetadata().getName(), e.getMessage());
      engine.deleteTopology(topology.getMetadata().getName());
    }
  }

  public void topologyDeleted(String name) {
    engine.deleteTopology(name);
  }

  public void node(io.fabric8.kubernetes.api.model.Node node) {
    engine.upsertNode(TopologyTranslator.node(node));
    capacity.upsertNode(CapacityTranslator.node(node));
  }

  public void nodeDeleted(String name) {
    engine.deleteNode(name);
    capacity.deleteNode(name);
  }

  /** A pod as stored now: takes node capacity while bound and running outside a placement. */
  public void pod(io.fabric8.kubernetes.api.model.Pod pod) {
    Map<String, Long> requests = TopologyTranslator.boundRequests(pod);
    if (requests == null) {
      engine.deleteBoundPod(pod.getMetadata().getUid());
    } else {
      engine.upsertBoundPod(pod.getMetadata().getUid(), pod.getSpec().getNodeName(), requests);
    }
    Map<String, Long> inUse = CapacityTranslator.runningRequests(pod);
    if (inUse == null) {
      capacity.deletePod(pod.getMetadata().getUid());
    } else {
      capacity.upsertPod(pod.getMetadata().getUid(), pod.getSpec().getNodeName(), inUse);
    }
    workloadPods.pod(pod);
  }

  public void podDeleted(String uid) {
    engine.deleteBoundPod(uid);
    capacity.deletePod(uid);
  }

  /** Nodes and pod requests as capacity accounting sees them (loop thread only). */
  public CapacityInventory capacity() {
    return capacity;
  }

  public java.util.Collection<ResourceFlavor> flavors() {
    return flavors.values();
  }

  public void namespace(String name, Map<String, String> labels) {
    touched.all();
    engine.upsertNamespace(name, labels == null ? Map.of() : labels);
    String costCentre = labels == null ? null : labels.get(UsageTranslator.COST_CENTRE_LABEL);
    if (costCentre == null) {
      costCentres.remove(name);
    } else {
      costCentres.put(name, costCentre);
    }
  }

  public void namespaceDeleted(String name) {
    engine.deleteNamespace(name);
    costCentres.remove(name);
  }

  /**
   * A workload as stored now. Older versions than the one held are ignored: an event can arrive
   * after the loop's own write.
   */
  public void workload(Workload wl) {
    String uid = wl.getMetadata().getUid();
    if (writing.contains(uid)) {
      // One of the loop's writes to it is on the wire: its result comes first (see WritePool).
      Workload held = heldEvents.get(uid);
      if (held == null || isNewer(wl, held)) {
        heldEvents.put(uid, wl);
      }
      return;
    }
    observe(wl);
  }

  /**
   * A Workload as the loop's own write left it: applied at once, never held. Kept without its
   * managedFields, like the informers' objects (a write's reply carries them; nothing reads them).
   */
  public void workloadWritten(Workload wl) {
    observe(LeanItemStore.lean(wl));
  }

  /**
   * A Workload as the loop's pending-condition write left it. If a later cycle has admitted it
   * meanwhile, the reply only becomes the version the admission is written on: it differs from the
   * version the engine decided on by that condition alone.
   */
  public void pendingConditionWritten(Workload wl) {
    LeanItemStore.lean(wl);
    String uid = wl.getMetadata().getUid();
    Workload known = workloads.get(uid);
    if (engine.admission(uid).isPresent() && known != null && isNewer(wl, known)) {
      workloads.put(uid, wl);
      return;
    }
    observe(wl);
  }

  /** A write to {@code key} is on the wire (called by the WritePool, loop thread). */
  void writeStarted(String key) {
    writing.add(key);
  }

  /** The write to {@code key} came back: the events held meanwhile are applied now. */
  void writeFinished(String key) {
    writing.remove(key);
    Workload held = heldEvents.remove(key);
    boolean deleted = deletedWhileWriting.remove(key);
    if (held != null) {
      observe(held);
    }
    if (deleted) {
      workloadDeleted(key);
    }
  }

  private void observe(Workload wl) {
    String uid = wl.getMetadata().getUid();
    Workload known = workloads.get(uid);
    if (known != null && !isNewer(wl, known)) {
      // The same version again (a resync, or the event of the loop's own write) changes nothing;
      // in particular it must not roll back an admission whose write is still being resolved.
      return;
    }
    // The reconcile's copy (JOSDK hands each reconcile one) becomes the informers' instance.
    wl = versions.intern(wl);
    workloads.put(uid, wl);
    touch(known);
    touch(wl);
    workloadPods.workload(wl);
    observeUsage(wl);
    checks.observe(wl);
    podsReady.observe(wl);
    var deadline = ExecutionTimeLimit.deadline(wl);
    if (deadline.isPresent()
        && !Boolean.FALSE.equals(wl.getSpec().active)
        && !StatusConditions.isFinished(wl)
        && !StatusConditions.isTrue(wl, StatusConditions.EVICTED)) {
      execDeadlines.put(uid, deadline.getAsLong());
    } else {
      execDeadlines.remove(uid);
    }
    if (StatusConditions.isFinished(wl)) {
      learnRuntime(wl);
      holds.release(uid);
      engine.removeWorkload(uid);
    } else if (StatusConditions.hasQuotaReserved(wl)) {
      boolean evicted = StatusConditions.isTrue(wl, StatusConditions.EVICTED);
      if (Boolean.FALSE.equals(wl.getSpec().active) && !evicted) {
        // Deactivated while holding quota: evicted, and its quota held until its pods stop.
        deactivated.add(uid);
      }
      if (engine.admission(uid).isEmpty()) {
        var stored = admission(wl);
        List<dev.berth.engine.Eviction> evictions =
            engine.recordAdmitted(
                model(wl),
                stored.clusterQueue(),
                stored.podSetAssignments(),
                stored.admittedAt(),
                checkObservedAdmissions);
        if (!evictions.isEmpty()) {
          log.warn(
              "admission of {}/{} in {} exceeds its quota; evicting the newest admissions {}",
              wl.getMetadata().getNamespace(),
              wl.getMetadata().getName(),
              stored.clusterQueue(),
              evictions.stream().map(dev.berth.engine.Eviction::workloadUid).toList());
          overQuota.add(new OverQuota(wl, evictions));
        }
      }
      engine.podsReady(uid, StatusConditions.isTrue(wl, StatusConditions.PODS_READY));
      if (evicted) {
        // Eviction in progress (also one found at restart): no more asking, and no victim again.
        engine.evictionObserved(uid);
      }
    } else if (Boolean.FALSE.equals(wl.getSpec().active)) {
      holds.release(uid);
      engine.removeWorkload(uid);
    } else {
      // Pending, or back in the queue after an eviction cleared its admission.
      if (engine.admission(uid).isPresent()) {
        engine.removeWorkload(uid);
      }
      if (podsReady.settings().enable() && PodsReadyTracker.reactivatedAfterLimit(wl)) {
        // Reactivated after too many PodsReadyTimeouts: queued once its requeueState is reset.
        engine.removeWorkload(uid);
        return;
      }
      long requeueAt = RequeueHold.requeueAt(wl);
      if (requeueAt > System.currentTimeMillis()) {
        // Backing off after a requeue: not a candidate before requeueAt.
        engine.removeWorkload(uid);
        holds.hold(uid, requeueAt);
        return;
      }
      holds.release(uid);
      engine.upsertWorkload(model(wl));
    }
  }

  /**
   * The queues a Workload version counts in: its LocalQueue, that queue's ClusterQueue, its own.
   */
  private void touch(Workload wl) {
    if (wl == null || wl.getSpec() == null || wl.getSpec().queueName == null) {
      return;
    }
    String lqKey = key(wl.getMetadata().getNamespace(), wl.getSpec().queueName);
    touched.localQueue(lqKey);
    LocalQueue lq = localQueues.get(lqKey);
    if (lq != null && lq.getSpec() != null) {
      touched.clusterQueue(lq.getSpec().clusterQueue);
    }
    if (wl.getStatus() != null && wl.getStatus().admission != null) {
      touched.clusterQueue(wl.getStatus().admission.clusterQueue);
      if (!StatusConditions.isFinished(wl)) {
        holders.add(lqKey, wl.getMetadata().getUid());
      }
    }
  }

  /** A cycle's admission (tentative until written): its queues' status changes with it. */
  public void admissionDecided(dev.berth.engine.Admission admission) {
    String lqKey = LocalQueueHolders.key(admission);
    holders.add(lqKey, admission.workloadUid());
    touched.localQueue(lqKey);
    touched.clusterQueue(admission.clusterQueue());
  }

  /** A cycle's eviction: its ClusterQueue's status changes with it. */
  public void evictionDecided(dev.berth.engine.Eviction eviction) {
    touched.clusterQueue(eviction.clusterQueue());
  }

  /** The queues whose status may have changed (the status publisher's; loop thread). */
  public TouchedQueues touchedQueues() {
    return touched;
  }

  /**
   * flavor → resource → usage of the engine's admissions through a LocalQueue, from its own
   * workloads only (loop thread).
   */
  public Map<String, Map<String, Long>> localQueueUsage(String namespace, String name) {
    return holders.usage(key(namespace, name), engine);
  }

  /** An AdmissionCheck as stored now: its workloads are looked at again. */
  public void admissionCheck(dev.berth.api.v1beta1.AdmissionCheck check) {
    checks.check(check);
  }

  public void admissionCheckDeleted(String name) {
    checks.checkDeleted(name);
  }

  public AdmissionCheckTracker checks() {
    return checks;
  }

  /**
   * Returns the held workloads whose requeueAt has come to the engine; the time of the next one, if
   * any, tells the loop when to wake.
   */
  public java.util.OptionalLong releaseDue(long now) {
    for (String uid : holds.takeDue(now)) {
      Workload wl = workloads.get(uid);
      if (wl != null
          && !StatusConditions.hasQuotaReserved(wl)
          && !StatusConditions.isFinished(wl)
          && !Boolean.FALSE.equals(wl.getSpec().active)) {
        engine.upsertWorkload(model(wl));
      }
    }
    return java.util.stream.Stream.of(
            holds.next(),
            execDeadlines.values().stream().mapToLong(Long::longValue).min(),
            podsReady.next())
        .filter(java.util.OptionalLong::isPresent)
        .mapToLong(java.util.OptionalLong::getAsLong)
        .min();
  }

  /** A deactivation for maximum execution time that failed to write is asked again. */
  void outOfTimeAgain(String uid) {
    Workload wl = workloads.get(uid);
    if (wl != null) {
      ExecutionTimeLimit.deadline(wl).ifPresent(at -> execDeadlines.put(uid, at));
    }
  }

  /** Admitted workloads whose maximum execution time is used up at {@code now}. */
  List<String> takeOutOfTime(long now) {
    List<String> out = new ArrayList<>();
    execDeadlines.forEach(
        (uid, at) -> {
          if (at <= now) {
            out.add(uid);
          }
        });
    out.forEach(execDeadlines::remove);
    return out;
  }

  /**
   * A finished Workload teaches the start-time replay how long its ClusterQueue's workloads run:
   * from its quota reservation to its Finished condition (also for those found at restart).
   */
  private void learnRuntime(Workload wl) {
    if (wl.getStatus() == null || wl.getStatus().admission == null) {
      return;
    }
    long reservedAt = admittedAt(wl);
    long finishedAt =
        StatusConditions.find(wl.getStatus().conditions, StatusConditions.FINISHED)
            .map(c -> parseTime(c.lastTransitionTime))
            .orElse(0L);
    if (reservedAt > 0 && finishedAt >= reservedAt) {
      engine.recordRuntime(
          wl.getStatus().admission.clusterQueue,
          wl.getMetadata().getUid(),
          finishedAt,
          finishedAt - reservedAt);
    }
  }

  /** Admitted workloads' ends by maximum execution time (epoch millis), for the replay. */
  public Map<String, Long> executionDeadlines() {
    return Map.copyOf(execDeadlines);
  }

  /** Pending workloads' maximum execution time left (millis), for the start-time replay. */
  public Map<String, Long> executionBudgets() {
    Map<String, Long> out = new java.util.HashMap<>();
    for (Workload wl : workloads.values()) {
      Integer max = wl.getSpec() == null ? null : wl.getSpec().maximumExecutionTimeSeconds;
      if (max != null && engine.isPending(wl.getMetadata().getUid())) {
        Integer past =
            wl.getStatus() == null ? null : wl.getStatus().accumulatedPastExecutionTimeSeconds;
        out.put(wl.getMetadata().getUid(), Math.max(0, max - (past == null ? 0 : past)) * 1000L);
      }
    }
    return out;
  }

  /** Whether the workload waits out a requeue backoff. */
  public boolean isBackingOff(String uid) {
    return holds.isHeld(uid);
  }

  public void workloadDeleted(String uid) {
    if (writing.contains(uid)) {
      deletedWhileWriting.add(uid);
      return;
    }
    Workload gone = workloads.remove(uid);
    if (gone != null) {
      touch(gone);
      workloadPods.forget(gone);
    }
    checks.forget(uid);
    podsReady.forget(uid);
    holds.release(uid);
    execDeadlines.remove(uid);
    engine.removeWorkload(uid);
    usageEvents.addAll(usage.deleted(uid, System.currentTimeMillis()));
  }

  private void observeUsage(Workload wl) {
    try {
      usageEvents.addAll(
          usage.observe(
              UsageTranslator.observation(wl, costCentres.get(wl.getMetadata().getNamespace()))));
    } catch (RuntimeException e) {
      // Billing must never keep a workload from the engine: a malformed time is logged, not fed.
      log.warn("usage of workload {} not tracked: {}", wl.getMetadata().getName(), e.toString());
    }
  }

  /** Pod name → podSet of the workload's pods seen so far (for the DCGM join); loop thread. */
  public Map<String, String> podsOf(String uid) {
    Workload wl = workloads.get(uid);
    return wl == null ? Map.of() : workloadPods.of(wl);
  }

  /** Runs opened and ended since the last call, in order (the usage ledger's publisher). */
  public List<UsageLedger.Event> takeUsageEvents() {
    List<UsageLedger.Event> out = List.copyOf(usageEvents);
    usageEvents.clear();
    return out;
  }

  /** Called by the loop once the bootstrap fed everything. */
  void bootstrapped() {
    checkObservedAdmissions = true;
  }

  /** The observed admissions that exceeded their quota since the last call. */
  List<OverQuota> takeOverQuota() {
    List<OverQuota> out = List.copyOf(overQuota);
    overQuota.clear();
    return out;
  }

  /** The deactivated workloads seen since the last call. */
  List<String> takeDeactivated() {
    List<String> out = List.copyOf(deactivated);
    deactivated.clear();
    return out;
  }

  public Optional<ClusterQueue> latestClusterQueue(String name) {
    return Optional.ofNullable(clusterQueues.get(name));
  }

  public Optional<Cohort> latestCohort(String name) {
    return Optional.ofNullable(cohorts.get(name));
  }

  /** A LocalQueue by its namespace/name key. */
  public Optional<LocalQueue> latestLocalQueue(String key) {
    return Optional.ofNullable(localQueues.get(key));
  }

  public Optional<ResourceFlavor> latestFlavor(String name) {
    return Optional.ofNullable(flavors.get(name));
  }

  public java.util.Collection<ClusterQueue> clusterQueues() {
    return clusterQueues.values();
  }

  public java.util.Collection<LocalQueue> localQueues() {
    return localQueues.values();
  }

  public java.util.Collection<Cohort> cohorts() {
    return cohorts.values();
  }

  /**
   * Whether the engine holds quota for any workload in the ClusterQueue: admitted, being written,
   * or evicted and not yet released.
   */
  public boolean holdsQuotaIn(String clusterQueue) {
    return engine.status().clusterQueueCounts(clusterQueue).reserving() > 0;
  }

  public Optional<Workload> latestWorkload(String uid) {
    return Optional.ofNullable(workloads.get(uid));
  }

  static String key(String namespace, String name) {
    return namespace + "/" + name;
  }

  private static boolean isNewer(Workload candidate, Workload known) {
    try {
      return Long.parseLong(candidate.getMetadata().getResourceVersion())
          > Long.parseLong(known.getMetadata().getResourceVersion());
    } catch (NumberFormatException e) {
      return true;
    }
  }

  /** The engine's form of a stored status.admission, so a restart rebuilds usage exactly. */
  static dev.berth.engine.Admission admission(Workload wl) {
    var stored = wl.getStatus().admission;
    List<PodSetAssignment> podSets = new ArrayList<>();
    if (stored.podSetAssignments != null) {
      for (var ps : stored.podSetAssignments) {
        Map<String, Long> usage = new java.util.LinkedHashMap<>();
        if (ps.resourceUsage != null) {
          ps.resourceUsage.forEach((r, q) -> usage.put(r, Quantity.parse(r, q.toString())));
        }
        podSets.add(
            new PodSetAssignment(
                ps.name,
                ps.flavors == null ? Map.of() : ps.flavors,
                usage,
                ps.count == null ? 0 : ps.count,
                Map.of(),
                TopologyTranslator.fromApi(ps.topologyAssignment)));
      }
    }
    log.debug(
        "recorded admitted workload {} in {}", wl.getMetadata().getName(), stored.clusterQueue);
    return new dev.berth.engine.Admission(
        wl.getMetadata().getUid(),
        wl.getMetadata().getNamespace(),
        wl.getMetadata().getName(),
        stored.clusterQueue,
        wl.getSpec().queueName,
        podSets,
        admittedAt(wl));
  }

  /**
   * When the workload got its quota: the QuotaReserved condition's transition time (epoch millis),
   * so preemption's "most recently admitted first" holds across restarts; 0 if unknown.
   */
  static long admittedAt(Workload wl) {
    return StatusConditions.find(wl.getStatus().conditions, StatusConditions.QUOTA_RESERVED)
        .map(c -> parseTime(c.lastTransitionTime))
        .orElse(0L);
  }

  /** A condition's time in epoch millis; 0 if missing or malformed. */
  private static long parseTime(String t) {
    try {
      return t == null ? 0L : dev.berth.operator.Timestamps.millis(t);
    } catch (java.time.format.DateTimeParseException e) {
      return 0L;
    }
  }
}
