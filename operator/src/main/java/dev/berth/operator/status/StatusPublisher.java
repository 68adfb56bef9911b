package dev.berth.operator.status;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueueStatus;
import dev.berth.api.v1beta1.Cohort;
import dev.berth.api.v1beta1.CohortStatus;
import dev.berth.api.v1beta1.FlavorUsage;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.LocalQueueStatus;
import dev.berth.api.v1beta1.ResourceUsage;
import dev.berth.api.v1beta1.StopPolicy;
import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.QueueCounts;
import dev.berth.engine.quota.Quantity;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.admission.ClusterState;
import dev.berth.operator.admission.StatusConditions;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After each cycle, writes ClusterQueue and LocalQueue statuses that changed: counts, usage per
 * flavor with the borrowed part, and the Active condition. Writes carry the resourceVersion; a
 * conflict means a newer object is on its way, and the cycle it triggers publishes again.
 */
public final class StatusPublisher
    implements java.util.function.Consumer<AdmissionLoop.CycleOutcome> {
  private static final Logger log = LoggerFactory.getLogger(StatusPublisher.class);

  private final KubernetesClient client;
  private final ClusterState state;
  private final Clock clock;

  public StatusPublisher(KubernetesClient client, ClusterState state, Clock clock) {
    this.client = client;
    this.state = state;
    this.clock = clock;
  }

  @Override
  public void accept(AdmissionLoop.CycleOutcome outcome) {
    AdmissionEngine engine = state.engine();
    for (ClusterQueue cq : List.copyOf(state.clusterQueues())) {
      publish(cq, engine);
    }
    for (Cohort cohort : List.copyOf(state.cohorts())) {
      publish(cohort, engine);
    }
    Map<String, Map<String, Map<String, Long>>> byLocalQueue = localQueueUsage();
    for (LocalQueue lq : List.copyOf(state.localQueues())) {
      publish(lq, engine, byLocalQueue);
    }
  }

  private void publish(ClusterQueue cq, AdmissionEngine engine) {
    String name = cq.getMetadata().getName();
    ClusterQueue copy = Serialization.clone(cq);
    ClusterQueueStatus status =
        copy.getStatus() == null ? new ClusterQueueStatus() : copy.getStatus();
    copy.setStatus(status);
    QueueCounts counts = engine.status().clusterQueueCounts(name);
    status.pendingWorkloads = counts.pending();
    status.reservingWorkloads = counts.reserving();
    status.admittedWorkloads = counts.admitted();
    Map<String, List<ResourceUsage>> byFlavor = new LinkedHashMap<>();
    for (var u : engine.status().usage(name)) {
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
    status.fairSharing.weightedShare = engine.status().weightedShare(name);
    String inactive = engine.status().clusterQueueInactiveMessage(name);
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
    if (!Objects.equals(json(cq.getStatus()), json(status))) {
      write(copy);
    }
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
  private void publish(Cohort cohort, AdmissionEngine engine) {
    String name = cohort.getMetadata().getName();
    Cohort copy = Serialization.clone(cohort);
    CohortStatus status = copy.getStatus() == null ? new CohortStatus() : copy.getStatus();
    copy.setStatus(status);
    if (status.conditions == null) {
      status.conditions = new ArrayList<>();
    }
    String inactive = engine.status().cohortInactiveMessage(name);
    StatusConditions.set(
        status.conditions,
        "Active",
        inactive == null,
        inactive == null ? "Ready" : "CohortCycle",
        inactive == null ? "The cohort tree is valid" : inactive,
        clock.instant());
    status.fairSharing = new dev.berth.api.v1beta1.FairSharingStatus();
    status.fairSharing.weightedShare = engine.status().cohortWeightedShare(name);
    if (!Objects.equals(json(cohort.getStatus()), json(status))) {
      try {
        state.cohortWritten(client.resource(copy).updateStatus());
      } catch (KubernetesClientException e) {
        log.debug("status of Cohort {} not written ({})", name, e.getCode());
      }
    }
  }

  /** namespace/queue → flavor → resource → usage of the workloads holding quota. */
  private Map<String, Map<String, Map<String, Long>>> localQueueUsage() {
    Map<String, Map<String, Map<String, Long>>> out = new HashMap<>();
    for (Workload wl : state.workloadsSnapshot()) {
      if (!StatusConditions.hasQuotaReserved(wl) || StatusConditions.isFinished(wl)) {
        continue;
      }
      String key = wl.getMetadata().getNamespace() + "/" + wl.getSpec().queueName;
      for (var ps : wl.getStatus().admission.podSetAssignments) {
        if (ps.flavors == null || ps.resourceUsage == null) {
          continue;
        }
        ps.flavors.forEach(
            (resource, flavor) -> {
              var q = ps.resourceUsage.get(resource);
              if (q != null) {
                out.computeIfAbsent(key, k -> new LinkedHashMap<>())
                    .computeIfAbsent(flavor, f -> new LinkedHashMap<>())
                    .merge(resource, Quantity.parse(resource, q.toString()), Long::sum);
              }
            });
      }
    }
    return out;
  }

  private void publish(
      LocalQueue lq,
      AdmissionEngine engine,
      Map<String, Map<String, Map<String, Long>>> byLocalQueue) {
    String namespace = lq.getMetadata().getNamespace();
    String name = lq.getMetadata().getName();
    LocalQueue copy = Serialization.clone(lq);
    LocalQueueStatus status = copy.getStatus() == null ? new LocalQueueStatus() : copy.getStatus();
    copy.setStatus(status);
    QueueCounts counts = engine.status().localQueueCounts(namespace, name);
    status.pendingWorkloads = counts.pending();
    status.reservingWorkloads = counts.reserving();
    status.admittedWorkloads = counts.admitted();
    List<FlavorUsage> flavors = new ArrayList<>();
    byLocalQueue
        .getOrDefault(namespace + "/" + name, Map.of())
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
    status.flavorUsage = flavors;
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
    if (!Objects.equals(json(lq.getStatus()), json(status))) {
      write(copy);
    }
  }

  private void write(ClusterQueue cq) {
    write(cq, true);
  }

  private void write(ClusterQueue cq, boolean retryOnConflict) {
    try {
      // Only the stored version is kept: the reply must not overwrite what the engine was fed.
      state.clusterQueueWritten(client.resource(cq).updateStatus());
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409 && retryOnConflict) {
        // Our copy is stale (e.g. a metadata-only change); take the stored one and publish again.
        ClusterQueue latest = client.resource(cq).get();
        if (latest != null) {
          latest.setStatus(cq.getStatus());
          write(latest, false);
          return;
        }
      }
      log.debug(
          "status of ClusterQueue {} not written ({})", cq.getMetadata().getName(), e.getCode());
    }
  }

  private void write(LocalQueue lq) {
    write(lq, true);
  }

  private void write(LocalQueue lq, boolean retryOnConflict) {
    try {
      state.localQueueWritten(client.resource(lq).updateStatus());
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409 && retryOnConflict) {
        LocalQueue latest = client.resource(lq).get();
        if (latest != null) {
          latest.setStatus(lq.getStatus());
          write(latest, false);
          return;
        }
      }
      log.debug(
          "status of LocalQueue {} not written ({})", lq.getMetadata().getName(), e.getCode());
    }
  }

  private static String json(Object status) {
    return status == null ? "" : Serialization.asJson(status);
  }
}
