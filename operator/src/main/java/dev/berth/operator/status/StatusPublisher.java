package dev.berth.operator.status;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueueStatus;
import dev.berth.api.v1beta1.Cohort;
import dev.berth.api.v1beta1.CohortStatus;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.FlavorUsage;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.LocalQueueStatus;
import dev.berth.api.v1beta1.ResourceUsage;
import dev.berth.api.v1beta1.StopPolicy;
import dev.berth.engine.QueueCounts;
import dev.berth.engine.StatusView;
import dev.berth.engine.quota.Quantity;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.admission.ClusterState;
import dev.berth.operator.admission.ClusterView;
import dev.berth.operator.admission.QueueChanges;
import dev.berth.operator.admission.StatusConditions;
import dev.berth.operator.admission.TouchedQueues;
import dev.berth.operator.admission.WritePool;
import dev.berth.operator.admission.WriteRate;
import dev.berth.operator.kube.ApiErrors;
import dev.berth.operator.kube.Copies;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the ClusterQueue, LocalQueue and Cohort statuses that changed: counts, usage per flavor
 * with the borrowed part, shares, and the Active condition, all from the engine's own numbers.
 *
 * <p>Work and writes follow what changed, not the size of the cluster: only the queues a cycle or
 * an observation touched ({@link dev.berth.operator.admission.TouchedQueues}) are looked at, and
 * the cohorts above their ClusterQueues; a LocalQueue's usage is summed from its own workloads.
 * Passes run at most once per {@link #PASS_EVERY}, and each object is written at most once per
 * {@link #OBJECT_EVERY} (its first write at once), so a busy queue's status costs a bounded number
 * of writes however many workloads move through it. All queues together share a budget of {@code
 * BERTH_QUEUE_STATUS_WRITE_QPS} writes a second: with a thousand ClusterQueues and as many
 * LocalQueues the per-object bound alone allowed 400 writes a second, the whole write rate of a
 * small API server, taken from admissions (issue 20's large-scale load). The budget goes to a
 * changed Active condition first (and to a status never written), then to the status written
 * longest ago; the rest wait for the next pass. A status held back by its own bound is not even
 * built. Writes go through the loop's {@link WritePool} and carry the resourceVersion; a conflict
 * is retried once on the stored version.
 */
public final class StatusPublisher
    implements java.util.function.Consumer<AdmissionLoop.CycleOutcome> {
  private static final Logger log = LoggerFactory.getLogger(StatusPublisher.class);
  static final Duration PASS_EVERY = Duration.ofSeconds(1);
  static final Duration OBJECT_EVERY = Duration.ofSeconds(5);

  private final KubernetesClient client;
  private final ClusterView state;
  private final QueueChanges queues;
  private final Clock clock;
  private final WritePool pool;
  private final WakeUp wakeUp;

  /** When each object's status was last handed to the writers (by pool key). */
  private final Map<String, Instant> lastWrite = new HashMap<>();

  /** The budget all queues' status writes share (BERTH_QUEUE_STATUS_WRITE_QPS). */
  private final WriteRate budget;

  /**
   * A changed status waiting for the budget: the object to send, under its pool key, and where to
   * hold its name if the budget is spent.
   */
  private record Change(
      String poolKey,
      HasMetadata copy,
      boolean urgent,
      Instant lastWrite,
      Set<String> heldIn,
      String name) {}

  /** A status held back by its object's own bound or by a write of it still out. */
  private static final Change HELD = new Change(null, null, false, null, null, null);

  private Instant lastPass = Instant.EPOCH;

  /** Touched queues held back by a rate bound, for the next pass. */
  private final Set<String> heldClusterQueues = new LinkedHashSet<>();

  private final Set<String> heldLocalQueues = new LinkedHashSet<>();
  private final Set<String> heldCohorts = new LinkedHashSet<>();

  public StatusPublisher(
      KubernetesClient client,
      ClusterView state,
      QueueChanges queues,
      Clock clock,
      WritePool pool,
      Consumer<Duration> pokeAfter,
      double writesPerSecond) {
    this.client = client;
    this.state = state;
    this.queues = queues;
    this.clock = clock;
    this.pool = pool;
    this.wakeUp = new WakeUp(pokeAfter);
    this.budget = new WriteRate(writesPerSecond, (int) Math.max(1, Math.ceil(writesPerSecond * 2)));
  }

  @Override
  public void accept(AdmissionLoop.CycleOutcome outcome) {
    outcome.result().admissions().forEach(queues::admissionDecided);
    outcome.result().evictions().forEach(queues::evictionDecided);
    Instant now = clock.instant();
    if (now.isBefore(lastPass.plus(PASS_EVERY))) {
      pokeAt(lastPass.plus(PASS_EVERY), now);
      return;
    }
    lastPass = now;
    TouchedQueues.Touched touched = queues.takeTouched();
    StatusView engine = state.engineStatus();
    Set<String> cqs = new LinkedHashSet<>(heldClusterQueues);
    Set<String> lqs = new LinkedHashSet<>(heldLocalQueues);
    Set<String> cohorts = new LinkedHashSet<>(heldCohorts);
    heldClusterQueues.clear();
    heldLocalQueues.clear();
    heldCohorts.clear();
    if (touched.all()) {
      state.clusterQueues().forEach(cq -> cqs.add(cq.getMetadata().getName()));
      state.localQueues().forEach(lq -> lqs.add(key(lq)));
      state.cohorts().forEach(c -> cohorts.add(c.getMetadata().getName()));
    } else {
      cqs.addAll(touched.clusterQueues());
      lqs.addAll(touched.localQueues());
      for (String name : cqs) {
        ClusterQueue cq = clusterQueue(name);
        if (cq != null && cq.getSpec() != null) {
          addWithAncestors(cq.getSpec().cohortName, cohorts);
        }
      }
    }
    Instant next = null;
    List<Change> changes = new ArrayList<>();
    for (String name : cqs) {
      ClusterQueue cq = clusterQueue(name);
      if (cq != null) {
        next =
            collect(
                publish(cq, engine, now),
                "ClusterQueue",
                heldClusterQueues,
                name,
                changes,
                next,
                now);
      }
    }
    for (String name : cohorts) {
      Cohort cohort = cohort(name);
      if (cohort != null) {
        next =
            collect(publish(cohort, engine, now), "Cohort", heldCohorts, name, changes, next, now);
      }
    }
    for (String k : lqs) {
      LocalQueue lq = localQueue(k);
      if (lq != null) {
        next =
            collect(publish(lq, engine, now), "LocalQueue", heldLocalQueues, k, changes, next, now);
      }
    }
    changes.sort(
        Comparator.comparing((Change c) -> !c.urgent())
            .thenComparing(c -> c.lastWrite() == null ? Instant.MIN : c.lastWrite()));
    long nanos = System.nanoTime();
    for (Change c : changes) {
      if (!budget.tryAcquire(nanos) || !handOver(c, now)) {
        c.heldIn().add(c.name());
        next = earliest(next, now.plusNanos(Math.max(budget.nanosUntilToken(nanos), 1)));
      }
    }
    if (next != null) {
      pokeAt(next, now);
    }
  }

  /** Sorts one object's outcome: nothing to write, held back, or a change for the budget. */
  private Instant collect(
      Change c,
      String kind,
      Set<String> held,
      String name,
      List<Change> changes,
      Instant next,
      Instant now) {
    if (c == HELD) {
      held.add(name);
      return earliest(next, due(kind + "/" + name, now));
    }
    if (c != null) {
      changes.add(new Change(c.poolKey(), c.copy(), c.urgent(), c.lastWrite(), held, name));
    }
    return next;
  }

  private Instant due(String poolKey, Instant now) {
    Instant last = lastWrite.get(poolKey);
    Instant at = last == null ? now : last.plus(OBJECT_EVERY);
    return at.isAfter(now) ? at : now.plus(PASS_EVERY);
  }

  private static Instant earliest(Instant a, Instant b) {
    return a == null || b.isBefore(a) ? b : a;
  }

  private void pokeAt(Instant when, Instant now) {
    wakeUp.at(when, now);
  }

  /** A cohort and the cohorts above it (a ClusterQueue's usage counts in every one). */
  private void addWithAncestors(String cohort, Set<String> out) {
    String name = cohort;
    while (name != null && out.add(name)) {
      Cohort c = cohort(name);
      name = c == null || c.getSpec() == null ? null : c.getSpec().parentName;
    }
  }

  private ClusterQueue clusterQueue(String name) {
    return state.latestClusterQueue(name).orElse(null);
  }

  private Cohort cohort(String name) {
    return state.latestCohort(name).orElse(null);
  }

  private LocalQueue localQueue(String key) {
    return state.latestLocalQueue(key).orElse(null);
  }

  private static String key(LocalQueue lq) {
    return lq.getMetadata().getNamespace() + "/" + lq.getMetadata().getName();
  }

  /** Whether the object's own bound (or a write of it still out) holds its status back. */
  private boolean held(String poolKey, Instant now) {
    Instant last = lastWrite.get(poolKey);
    return last != null && now.isBefore(last.plus(OBJECT_EVERY)) || pool.busy(poolKey);
  }

  /** The change to write, or null when the status is as stored. */
  private Change change(
      String poolKey, Object before, Object after, HasMetadata copy, boolean urgent) {
    if (Objects.equals(json(before), json(after))) {
      return null;
    }
    return new Change(poolKey, copy, urgent, lastWrite.get(poolKey), null, null);
  }

  /** Hands the change to the writers; false when the pool has no room for it. */
  private boolean handOver(Change c, Instant now) {
    HasMetadata copy = c.copy();
    if (!pool.submit(c.poolKey(), () -> () -> send(copy))) {
      return false;
    }
    lastWrite.put(c.poolKey(), now);
    return true;
  }

  /** Whether the Active condition the status would carry differs from the stored one. */
  private static boolean activeChanged(List<Condition> stored, boolean active) {
    Condition current =
        stored == null ? null : StatusConditions.find(stored, "Active").orElse(null);
    return current == null || current.isTrue() != active;
  }

  private Change publish(ClusterQueue cq, StatusView engine, Instant now) {
    String name = cq.getMetadata().getName();
    String poolKey = "ClusterQueue/" + name;
    if (held(poolKey, now)) {
      return HELD;
    }
    ClusterQueue copy = Copies.deep(cq);
    ClusterQueueStatus status =
        copy.getStatus() == null ? new ClusterQueueStatus() : copy.getStatus();
    copy.setStatus(status);
    QueueCounts counts = engine.clusterQueueCounts(name);
    status.pendingWorkloads = counts.pending();
    status.reservingWorkloads = counts.reserving();
    status.admittedWorkloads = counts.admitted();
    Map<String, List<ResourceUsage>> byFlavor = new LinkedHashMap<>();
    for (var u : engine.usage(name)) {
      byFlavor
          .computeIfAbsent(u.flavor(), f -> new ArrayList<>())
          .add(
              new ResourceUsage(
                  u.resource(),
                  new io.fabric8.kubernetes.api.model.Quantity(
                      Quantity.format(u.resource(), u.total())),
                  new io.fabric8.kubernetes.api.model.Quantity(
                      Quantity.format(u.resource(), u.borrowed()))));
    }
    List<FlavorUsage> flavors = new ArrayList<>();
    byFlavor.forEach((flavor, resources) -> flavors.add(new FlavorUsage(flavor, resources)));
    status.flavorsReservation = flavors;
    status.flavorsUsage = flavors;
    status.observedGeneration = cq.getMetadata().getGeneration();
    status.fairSharing = new dev.berth.api.v1beta1.FairSharingStatus();
    status.fairSharing.weightedShare = engine.weightedShare(name);
    String inactive = engine.clusterQueueInactiveMessage(name);
    if (status.conditions == null) {
      status.conditions = new ArrayList<>();
    }
    StatusConditions.set(
        status.conditions,
        "Active",
        inactive == null,
        inactive == null ? "Ready" : inactiveReason(cq),
        inactive == null ? "Can admit new workloads" : inactive,
        clock.instant());
    return change(
        poolKey,
        cq.getStatus(),
        status,
        copy,
        cq.getStatus() == null || activeChanged(cq.getStatus().conditions, inactive == null));
  }

  private String inactiveReason(ClusterQueue cq) {
    if (cq.getMetadata().getDeletionTimestamp() != null) {
      return "Terminating";
    }
    if (cq.getSpec() != null
        && cq.getSpec().stopPolicy != null
        && cq.getSpec().stopPolicy != StopPolicy.None) {
      return "Stopped";
    }
    if (cq.getSpec() != null && cq.getSpec().resourceGroups != null) {
      boolean missing =
          cq.getSpec().resourceGroups.stream()
              .flatMap(g -> g.flavors.stream())
              .anyMatch(f -> state.latestFlavor(f.name).isEmpty());
      if (missing) {
        return "FlavorNotFound";
      }
    }
    return "Inactive";
  }

  /** A Cohort object's Active condition (false while its tree has a cycle) and its share. */
  private Change publish(Cohort cohort, StatusView engine, Instant now) {
    String name = cohort.getMetadata().getName();
    String poolKey = "Cohort/" + name;
    if (held(poolKey, now)) {
      return HELD;
    }
    Cohort copy = Copies.deep(cohort);
    CohortStatus status = copy.getStatus() == null ? new CohortStatus() : copy.getStatus();
    copy.setStatus(status);
    if (status.conditions == null) {
      status.conditions = new ArrayList<>();
    }
    String inactive = engine.cohortInactiveMessage(name);
    StatusConditions.set(
        status.conditions,
        "Active",
        inactive == null,
        inactive == null ? "Ready" : "CohortCycle",
        inactive == null ? "The cohort tree is valid" : inactive,
        clock.instant());
    status.fairSharing = new dev.berth.api.v1beta1.FairSharingStatus();
    status.fairSharing.weightedShare = engine.cohortWeightedShare(name);
    return change(
        poolKey,
        cohort.getStatus(),
        status,
        copy,
        cohort.getStatus() == null
            || activeChanged(cohort.getStatus().conditions, inactive == null));
  }

  private Change publish(LocalQueue lq, StatusView engine, Instant now) {
    String namespace = lq.getMetadata().getNamespace();
    String name = lq.getMetadata().getName();
    String poolKey = "LocalQueue/" + namespace + "/" + name;
    if (held(poolKey, now)) {
      return HELD;
    }
    LocalQueue copy = Copies.deep(lq);
    LocalQueueStatus status = copy.getStatus() == null ? new LocalQueueStatus() : copy.getStatus();
    copy.setStatus(status);
    QueueCounts counts = engine.localQueueCounts(namespace, name);
    status.pendingWorkloads = counts.pending();
    status.reservingWorkloads = counts.reserving();
    status.admittedWorkloads = counts.admitted();
    List<FlavorUsage> flavors = new ArrayList<>();
    queues
        .localQueueUsage(namespace, name)
        .forEach(
            (flavor, resources) -> {
              List<ResourceUsage> list = new ArrayList<>();
              resources.forEach(
                  (resource, amount) ->
                      list.add(
                          new ResourceUsage(
                              resource,
                              new io.fabric8.kubernetes.api.model.Quantity(
                                  Quantity.format(resource, amount)),
                              null)));
              flavors.add(new FlavorUsage(flavor, list));
            });
    status.flavorsReservation = flavors;
    status.flavorsUsage = flavors;
    status.observedGeneration = lq.getMetadata().getGeneration();
    if (status.conditions == null) {
      status.conditions = new ArrayList<>();
    }
    String cqName = lq.getSpec().clusterQueue;
    boolean cqExists =
        state.clusterQueues().stream().anyMatch(c -> c.getMetadata().getName().equals(cqName));
    boolean stopped = lq.getSpec().stopPolicy != null && lq.getSpec().stopPolicy != StopPolicy.None;
    String reason = !cqExists ? "ClusterQueueDoesNotExist" : stopped ? "Stopped" : "Ready";
    String message =
        !cqExists
            ? "ClusterQueue " + cqName + " doesn't exist"
            : stopped
                ? "LocalQueue is stopped (" + lq.getSpec().stopPolicy + ")"
                : "Can submit new workloads to ClusterQueue " + cqName;
    StatusConditions.set(
        status.conditions, "Active", cqExists && !stopped, reason, message, clock.instant());
    if (engine.ordersByUsage(cqName)) {
      engine
          .localQueueUsage(namespace, name)
          .filter(u -> u.lastUpdate() != null)
          .ifPresent(u -> status.fairSharing = AdmissionUsageStatus.with(status.fairSharing, u));
    }
    return change(
        poolKey,
        lq.getStatus(),
        status,
        copy,
        lq.getStatus() == null || activeChanged(lq.getStatus().conditions, cqExists && !stopped));
  }

  /**
   * Writer thread: the status update; on a conflict (a metadata-only change made our copy stale)
   * once more on the stored version. Only the stored version is kept from the reply: it must not
   * overwrite what the engine was fed.
   */
  private <T extends io.fabric8.kubernetes.api.model.HasMetadata> Consumer<ClusterState> send(
      T copy) {
    T object = copy;
    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        T written = client.resource(object).updateStatus();
        return s -> written(written, s);
      } catch (KubernetesClientException e) {
        T latest = ApiErrors.conflict(e) && attempt == 0 ? client.resource(object).get() : null;
        if (latest == null) {
          log.debug(
              "status of {} {} not written ({})",
              object.getKind(),
              object.getMetadata().getName(),
              e.getCode());
          return s -> {};
        }
        withStatusOf(latest, object);
        object = latest;
      }
    }
    return s -> {};
  }

  private static void withStatusOf(Object target, Object source) {
    if (target instanceof ClusterQueue t && source instanceof ClusterQueue src) {
      t.setStatus(src.getStatus());
    } else if (target instanceof LocalQueue t && source instanceof LocalQueue src) {
      t.setStatus(src.getStatus());
    } else if (target instanceof Cohort t && source instanceof Cohort src) {
      t.setStatus(src.getStatus());
    }
  }

  private static void written(Object written, ClusterState s) {
    if (written instanceof ClusterQueue cq) {
      s.clusterQueueWritten(cq);
    } else if (written instanceof LocalQueue lq) {
      s.localQueueWritten(lq);
    } else if (written instanceof Cohort c) {
      s.cohortWritten(c);
    }
  }

  private static String json(Object status) {
    return status == null ? "" : Serialization.asJson(status);
  }
}
