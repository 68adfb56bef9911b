package dev.berth.operator.admission;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Cohort;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.PodSetAssignment;
import dev.berth.engine.StatusView;
import dev.berth.engine.quota.Quantity;
import dev.berth.engine.topology.NodeInventory;
import dev.berth.operator.kube.LeanItemStore;
import dev.berth.operator.kube.SharedVersions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the loop knows of the cluster: the engine, fed from observations, and the latest API object
 * of each kind (a workload's admission is written against the version the engine decided on). Each
 * Workload version is read once into its {@link WorkloadPhase}; the engine is fed by phase, and the
 * side ledgers ({@link ClusterObserver}s: usage, node capacity, execution deadlines, pods-ready,
 * admission checks) are told. Mutated only on the loop thread; the maps are concurrent so
 * publishers may read them, through {@link ClusterView}.
 */
public final class ClusterState implements ClusterView, QueueChanges {
  private static final Logger log = LoggerFactory.getLogger(ClusterState.class);

  private final AdmissionEngine engine;

  /** The latest version of a Workload and the phase it was read into. */
  private record Known(Workload version, WorkloadPhase phase) {}

  private final Map<String, Known> workloads = new ConcurrentHashMap<>();
  final Map<String, ClusterQueue> clusterQueues = new ConcurrentHashMap<>();
  final Map<String, LocalQueue> localQueues = new ConcurrentHashMap<>();
  final Map<String, ResourceFlavor> flavors = new ConcurrentHashMap<>();
  final Map<String, Cohort> cohorts = new ConcurrentHashMap<>();

  /** AdmissionChecks, and the quota-reserved workloads waiting on them. */
  private final AdmissionCheckTracker checks = new AdmissionCheckTracker();

  /** Admitted workloads with a maximum execution time: when each uses it up. */
  private final ExecutionDeadlines execDeadlines = new ExecutionDeadlines();

  /** Requeued workloads kept out of the engine until their requeueAt. */
  private final RequeueHold holds = new RequeueHold();

  /** waitForPodsReady: admitted workloads' deadlines for ready pods. */
  private PodsReadyTracker podsReady =
      new PodsReadyTracker(dev.berth.operator.WaitForPodsReady.DEFAULT);

  /** Reads each Workload version into its phase (waitForPodsReady decides one phase). */
  private PhaseClassifier classifier =
      new PhaseClassifier(dev.berth.operator.WaitForPodsReady.DEFAULT.enable());

  /** The side ledgers, told of every observation in the order they were registered. */
  private final List<ClusterObserver> observers = new ArrayList<>();

  /** Queues whose status may have changed since the status publisher last looked. */
  private final TouchedQueues touched = new TouchedQueues();

  /** The Workloads that may hold quota through each LocalQueue (its usage). */
  private final LocalQueueHolders holders = new LocalQueueHolders();

  /** The loop's writes on the wire, and the events held until their results are applied. */
  private final WritesInFlight inFlight = new WritesInFlight();

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
    observers.add(checks);
    observers.add(podsReady);
    observers.add(execDeadlines);
  }

  /**
   * Registers a side ledger kept outside the admission package (usage, node capacity); before the
   * first observation, so that it sees the bootstrap too.
   */
  public ClusterState register(ClusterObserver observer) {
    observers.add(observer);
    return this;
  }

  public AdmissionEngine engine() {
    return engine;
  }

  /** waitForPodsReady's settings (before the first observation). */
  public ClusterState waitForPodsReady(dev.berth.operator.WaitForPodsReady settings) {
    PodsReadyTracker tracker = new PodsReadyTracker(settings);
    observers.set(observers.indexOf(podsReady), tracker);
    podsReady = tracker;
    classifier = new PhaseClassifier(settings.enable());
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
    // Admission fair sharing's usage survives a restart in the status; the engine takes it only
    // when newer than its own, so the operator's own writes, read back, change nothing.
    ModelTranslator.localQueueUsage(lq)
        .ifPresent(
            u ->
                engine.restoreLocalQueueUsage(
                    lq.getMetadata().getNamespace(),
                    lq.getMetadata().getName(),
                    u.consumed(),
                    u.lastUpdate()));
  }

  /** Admission fair sharing sampled these LocalQueues (namespace/name): their status changed. */
  public void localQueuesSampled(java.util.List<String> keys) {
    keys.forEach(touched::localQueue);
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
    observers.forEach(o -> o.node(node));
  }

  public void nodeDeleted(String name) {
    engine.deleteNode(name);
    observers.forEach(o -> o.nodeDeleted(name));
  }

  /** A pod as stored now: takes node capacity while bound and running outside a placement. */
  public void pod(io.fabric8.kubernetes.api.model.Pod pod) {
    Map<String, Long> requests = TopologyTranslator.boundRequests(pod);
    if (requests == null) {
      engine.deleteBoundPod(pod.getMetadata().getUid());
    } else {
      engine.upsertBoundPod(pod.getMetadata().getUid(), pod.getSpec().getNodeName(), requests);
    }
    observers.forEach(o -> o.pod(pod));
  }

  public void podDeleted(String uid) {
    engine.deleteBoundPod(uid);
    observers.forEach(o -> o.podDeleted(uid));
  }

  @Override
  public java.util.Collection<ResourceFlavor> flavors() {
    return flavors.values();
  }

  public void namespace(String name, Map<String, String> labels) {
    touched.all();
    engine.upsertNamespace(name, labels == null ? Map.of() : labels);
    observers.forEach(o -> o.namespace(name, labels));
  }

  /**
   * The budgets spent now (the budget publisher's evaluation): their LocalQueues' pending workloads
   * are held or released, which changes the queues' counts.
   */
  public void budgets(dev.berth.engine.model.SpentBudgets spent) {
    if (!spent.localQueues().keySet().equals(spentBudgets.localQueues().keySet())
        || !spent.clusterQueues().keySet().equals(spentBudgets.clusterQueues().keySet())
        || !spent.costCentres().keySet().equals(spentBudgets.costCentres().keySet())) {
      // Which queues hold changed (not only the numbers of their messages): their counts did.
      touched.all();
    }
    spentBudgets = spent;
    engine.budgets(spent);
  }

  private dev.berth.engine.model.SpentBudgets spentBudgets =
      dev.berth.engine.model.SpentBudgets.NONE;

  public void namespaceDeleted(String name) {
    engine.deleteNamespace(name);
    observers.forEach(o -> o.namespaceDeleted(name));
  }

  /**
   * A workload as stored now. Older versions than the one held are ignored: an event can arrive
   * after the loop's own write.
   */
  public void workload(Workload wl) {
    if (inFlight.hold(wl)) {
      // One of the loop's writes to it is on the wire: its result comes first (see WritePool).
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
    Known known = workloads.get(uid);
    if (engine.admission(uid).isPresent() && known != null && isNewer(wl, known.version())) {
      // Its phase is the one held: the pending condition is no part of it.
      workloads.put(uid, new Known(wl, known.phase()));
      return;
    }
    observe(wl);
  }

  /** A write to {@code key} is on the wire (called by the WritePool, loop thread). */
  void writeStarted(String key) {
    inFlight.started(key);
  }

  /** The write to {@code key} came back: the events held meanwhile are applied now. */
  void writeFinished(String key) {
    WritesInFlight.Held held = inFlight.finished(key);
    if (held.newest() != null) {
      observe(held.newest());
    }
    if (held.deleted()) {
      workloadDeleted(key);
    }
  }

  /**
   * A Workload version, read once into its phase: every side ledger is told, then the engine is fed
   * as the phase says.
   */
  private void observe(Workload wl) {
    String uid = wl.getMetadata().getUid();
    Known known = workloads.get(uid);
    if (known != null && !isNewer(wl, known.version())) {
      // The same version again (a resync, or the event of the loop's own write) changes nothing;
      // in particular it must not roll back an admission whose write is still being resolved.
      return;
    }
    // The reconcile's copy (JOSDK hands each reconcile one) becomes the informers' instance.
    wl = versions.intern(wl);
    WorkloadPhase phase = classifier.classify(wl, System.currentTimeMillis());
    workloads.put(uid, new Known(wl, phase));
    if (known != null) {
      touch(known.version(), known.phase());
    }
    touch(wl, phase);
    for (ClusterObserver observer : observers) {
      observer.workload(wl, phase);
    }
    if (phase instanceof WorkloadPhase.Finished finished) {
      learnRuntime(uid, finished);
      holds.release(uid);
      engine.removeWorkload(uid);
    } else if (phase.reservation().isPresent()) {
      holdsQuota(wl, phase, phase.reservation().get());
    } else if (phase instanceof WorkloadPhase.Deactivated) {
      holds.release(uid);
      engine.removeWorkload(uid);
    } else {
      queued(wl, phase);
    }
  }

  /** Evicting, deactivating, reserved or admitted: the engine holds its quota. */
  private void holdsQuota(Workload wl, WorkloadPhase phase, WorkloadPhase.Reservation held) {
    String uid = wl.getMetadata().getUid();
    if (phase instanceof WorkloadPhase.Deactivating) {
      // Deactivated while holding quota: evicted, and its quota held until its pods stop.
      deactivated.add(uid);
    }
    if (engine.admission(uid).isEmpty()) {
      var stored = admission(wl, held.reservedAt());
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
      // Admitted on idle capacity before a restart: still every preemptor's first victim.
      StatusConditions.find(
              wl.getStatus() == null ? null : wl.getStatus().conditions,
              StatusConditions.ON_IDLE_CAPACITY)
          .filter(c -> c.isTrue())
          .ifPresent(c -> engine.onIdleCapacity(uid, c.message));
    }
    engine.checkpointed(uid, ModelTranslator.lastCheckpoint(wl));
    engine.podsReady(uid, held.podsReady());
    if (phase instanceof WorkloadPhase.Evicting) {
      // Eviction in progress (also one found at restart): no more asking, and no victim again; a
      // reclaim pauses its queue's borrowing.
      engine.evictionObserved(uid, preemptionReason(wl), System.currentTimeMillis());
    }
  }

  /** Why it was preempted, from its Preempted condition; null when it was not preempted. */
  private static dev.berth.engine.PreemptionReason preemptionReason(Workload wl) {
    return StatusConditions.find(
            wl.getStatus() == null ? null : wl.getStatus().conditions, StatusConditions.PREEMPTED)
        .filter(c -> "True".equals(c.status))
        .flatMap(
            c ->
                java.util.Arrays.stream(dev.berth.engine.PreemptionReason.values())
                    .filter(r -> r.name().equals(c.reason))
                    .findFirst())
        .orElse(null);
  }

  /**
   * Pending, backing off or awaiting its requeue reset: in the queue, or back in it after an
   * eviction cleared its admission.
   */
  private void queued(Workload wl, WorkloadPhase phase) {
    String uid = wl.getMetadata().getUid();
    if (engine.admission(uid).isPresent()) {
      engine.removeWorkload(uid);
    }
    if (phase instanceof WorkloadPhase.AwaitingRequeueReset) {
      // Reactivated after too many PodsReadyTimeouts: queued once its requeueState is reset.
      engine.removeWorkload(uid);
    } else if (phase instanceof WorkloadPhase.BackingOff backingOff) {
      // Backing off after a requeue: not a candidate before requeueAt.
      engine.removeWorkload(uid);
      holds.hold(uid, backingOff.until());
    } else {
      holds.release(uid);
      engine.upsertWorkload(model(wl));
    }
  }

  /**
   * The queues a Workload version counts in: its LocalQueue, that queue's ClusterQueue, its own.
   */
  private void touch(Workload wl, WorkloadPhase phase) {
    if (wl.getSpec() == null || wl.getSpec().queueName == null) {
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
      if (!(phase instanceof WorkloadPhase.Finished)) {
        holders.add(lqKey, wl.getMetadata().getUid());
      }
    }
  }

  @Override
  public void admissionDecided(dev.berth.engine.Admission admission) {
    String lqKey = LocalQueueHolders.key(admission);
    holders.add(lqKey, admission.workloadUid());
    touched.localQueue(lqKey);
    touched.clusterQueue(admission.clusterQueue());
  }

  @Override
  public void evictionDecided(dev.berth.engine.Eviction eviction) {
    touched.clusterQueue(eviction.clusterQueue());
  }

  @Override
  public TouchedQueues.Touched takeTouched() {
    return touched.take();
  }

  @Override
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
      Known known = workloads.get(uid);
      if (known != null && known.phase().queued()) {
        engine.upsertWorkload(model(known.version()));
      }
    }
    return java.util.stream.Stream.of(holds.next(), execDeadlines.next(), podsReady.next())
        .filter(java.util.OptionalLong::isPresent)
        .mapToLong(java.util.OptionalLong::getAsLong)
        .min();
  }

  /** A deactivation for maximum execution time that failed to write is asked again. */
  void outOfTimeAgain(String uid) {
    Known known = workloads.get(uid);
    if (known != null) {
      execDeadlines.again(known.version());
    }
  }

  /** Admitted workloads whose maximum execution time is used up at {@code now}. */
  List<String> takeOutOfTime(long now) {
    return execDeadlines.takeOutOfTime(now);
  }

  /**
   * A finished Workload teaches the start-time replay how long its ClusterQueue's workloads run:
   * from its quota reservation to its Finished condition (also for those found at restart).
   */
  private void learnRuntime(String uid, WorkloadPhase.Finished finished) {
    long reservedAt = finished.reservedAt();
    if (reservedAt > 0 && finished.at() >= reservedAt) {
      engine.recordRuntime(finished.clusterQueue(), uid, finished.at(), finished.at() - reservedAt);
    }
  }

  /** Admitted workloads' ends by maximum execution time (epoch millis), for the replay. */
  public Map<String, Long> executionDeadlines() {
    return execDeadlines.snapshot();
  }

  /** Pending workloads' maximum execution time left (millis), for the start-time replay. */
  public Map<String, Long> executionBudgets() {
    Map<String, Long> out = new java.util.HashMap<>();
    for (Known known : workloads.values()) {
      Workload wl = known.version();
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
    if (inFlight.holdDeletion(uid)) {
      return;
    }
    Known gone = workloads.remove(uid);
    Workload last = gone == null ? null : gone.version();
    if (gone != null) {
      touch(last, gone.phase());
    }
    holds.release(uid);
    engine.removeWorkload(uid);
    for (ClusterObserver observer : observers) {
      observer.workloadDeleted(uid, last);
    }
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

  @Override
  public Optional<ClusterQueue> latestClusterQueue(String name) {
    return Optional.ofNullable(clusterQueues.get(name));
  }

  @Override
  public Optional<Cohort> latestCohort(String name) {
    return Optional.ofNullable(cohorts.get(name));
  }

  /** A LocalQueue by its namespace/name key. */
  @Override
  public Optional<LocalQueue> latestLocalQueue(String key) {
    return Optional.ofNullable(localQueues.get(key));
  }

  @Override
  public Optional<ResourceFlavor> latestFlavor(String name) {
    return Optional.ofNullable(flavors.get(name));
  }

  @Override
  public java.util.Collection<ClusterQueue> clusterQueues() {
    return clusterQueues.values();
  }

  @Override
  public java.util.Collection<LocalQueue> localQueues() {
    return localQueues.values();
  }

  @Override
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

  @Override
  public Optional<Workload> latestWorkload(String uid) {
    Known known = workloads.get(uid);
    return known == null ? Optional.empty() : Optional.of(known.version());
  }

  @Override
  public Optional<WorkloadPhase> phase(String uid) {
    Known known = workloads.get(uid);
    return known == null ? Optional.empty() : Optional.of(known.phase());
  }

  @Override
  public StatusView engineStatus() {
    return engine.status();
  }

  @Override
  public Optional<dev.berth.engine.Admission> admission(String uid) {
    return engine.admission(uid);
  }

  @Override
  public List<String> quotaHolderUids() {
    return engine.quotaHolderUids();
  }

  @Override
  public Map<String, NodeInventory> topologyInventories() {
    return engine.topologyInventories();
  }

  @Override
  public java.util.Set<String> awaitingChecks() {
    return checks.awaiting().keySet();
  }

  @Override
  public Map<String, dev.berth.engine.StartEstimate> estimateStarts(long now) {
    return engine.estimateStarts(now, executionDeadlines(), executionBudgets());
  }

  static String key(String namespace, String name) {
    return namespace + "/" + name;
  }

  /** By resourceVersion; an unreadable one counts as newer. */
  static boolean isNewer(Workload candidate, Workload known) {
    try {
      return Long.parseLong(candidate.getMetadata().getResourceVersion())
          > Long.parseLong(known.getMetadata().getResourceVersion());
    } catch (NumberFormatException e) {
      return true;
    }
  }

  /**
   * The engine's form of a stored status.admission, so a restart rebuilds usage exactly.
   *
   * @param reservedAt when its quota was reserved ({@link WorkloadPhase.Reservation#reservedAt})
   */
  private static dev.berth.engine.Admission admission(Workload wl, long reservedAt) {
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
        reservedAt);
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
