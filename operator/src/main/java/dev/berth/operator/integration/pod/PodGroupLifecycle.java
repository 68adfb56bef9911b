package dev.berth.operator.integration.pod;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.admission.StatusConditions;
import dev.berth.operator.events.EventRecorder;
import dev.berth.operator.integration.DeviceCharges;
import dev.berth.operator.integration.Integration;
import dev.berth.operator.integration.Integration.Finish;
import dev.berth.operator.integration.PodsReadyCondition;
import dev.berth.operator.integration.PriorityResolver;
import dev.berth.operator.integration.WorkloadLifecycle;
import dev.berth.operator.integration.WorkloadNames;
import dev.berth.operator.kube.ApiErrors;
import dev.berth.operator.kube.Copies;
import dev.berth.operator.kube.ReadBack;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Runs a pod group under its one Workload, named after the group: created once the group has all
 * its pods; its members released together (gate removed, flavor injected) once admitted, and a
 * replacement for a failed member released on arrival; excess pods deleted while gated; every pod
 * deleted on eviction, the quota going back with the Workload once the last pod is gone; Finished
 * when the group is ({@link PodGroup#finished}). Every call reads the group afresh from the pod
 * cache, so each event brings the group one step on.
 */
public final class PodGroupLifecycle {
  /** The Workloads of pod groups carry this owner kind, apart from a plain Pod's. */
  public static final String OWNER_KIND = "PodGroup";

  private final PriorityResolver priorities;
  private final Integration.FlavorLookup flavors;
  private final EventRecorder events;
  private final Clock clock;

  /** waitForPodsReady on: an admitted group's Workload's PodsReady condition follows its pods. */
  private final boolean podsReady;

  private DeviceCharges devices = DeviceCharges.NONE;

  /** What a new group Workload's pods hold through ResourceClaims (docs/dra.md). */
  public PodGroupLifecycle devices(DeviceCharges devices) {
    this.devices = devices;
    return this;
  }

  public PodGroupLifecycle(
      PriorityResolver priorities,
      Integration.FlavorLookup flavors,
      EventRecorder events,
      Clock clock,
      boolean podsReady) {
    this.podsReady = podsReady;
    this.priorities = priorities;
    this.flavors = flavors;
    this.events = events;
    this.clock = clock;
  }

  /** The group a pod belongs to, or null for a pod of no group. */
  public static String groupOf(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    return labels == null ? null : labels.get(Berth.POD_GROUP_NAME_LABEL);
  }

  /**
   * Reconciles the group {@code name} of {@code namespace}, whose pods ({@code pods}, from the
   * cache, those being deleted included) and Workload ({@code found}) are as the caches have them.
   * {@code event} is the pod whose event this is (where warnings go).
   */
  public void reconcile(
      KubernetesClient client,
      String namespace,
      String name,
      Pod event,
      List<Pod> pods,
      Optional<Workload> found,
      Consumer<Workload> created) {
    if (pods.isEmpty()) {
      // Its last pod is gone (ended and deleted, or stopped on eviction): nothing of it runs, and
      // nothing is left to run under its Workload, which goes with any quota it held.
      found.ifPresent(w -> client.resource(w).delete());
      return;
    }
    PodGroup.Result result = PodGroup.of(namespace, name, pods);
    if (result.group() == null) {
      events.warning(event, "InvalidPodGroup", result.problem());
      return;
    }
    PodGroup group = result.group();
    if (found.isEmpty()) {
      if (group.finished().isEmpty() && group.complete()) {
        create(client, group, event, created);
      }
      return;
    }
    Workload workload = found.get();
    Optional<Finish> finished = group.finished();
    if (finished.isPresent()) {
      if (!StatusConditions.isFinished(workload)) {
        ReadBack.write(
            client,
            WorkloadLifecycle.finished(workload, finished.get(), clock.instant()),
            w -> client.resource(w).updateStatus(),
            StatusConditions::isFinished);
        events.normal(event, "Finished", "Workload finished: " + finished.get().message());
      }
      return;
    }
    if (StatusConditions.isFinished(workload)) {
      return;
    }
    if (StatusConditions.isTrue(workload, StatusConditions.EVICTED)
        && StatusConditions.hasQuotaReserved(workload)) {
      // A pod cannot be gated again: the group is stopped by deleting its pods, as Kueue does; it
      // is up to whoever made them to make them anew. Only the Workload's own pods: the new ones
      // a controller makes meanwhile (a LeaderWorkerSet's StatefulSets) wait behind the gate for
      // the group's next Workload, which is made once this one, and its quota, is gone.
      Set<String> owned = ownerUids(workload);
      if (pods.stream().noneMatch(p -> owned.contains(p.getMetadata().getUid()))) {
        // Gone with its pods (a Workload has no finalizer): the new pods' group queues now, as no
        // event of theirs may come again while they wait behind the gate.
        client.resource(workload).delete();
        if (group.finished().isEmpty() && group.complete()) {
          create(client, group, event, created);
        }
        return;
      }
      for (Pod pod : group.toStop()) {
        if (owned.contains(pod.getMetadata().getUid())) {
          client.resource(pod).delete();
          events.warning(pod, "Stopped", "its pod group's Workload was evicted; deleted");
        }
      }
      return;
    }
    for (Pod pod : group.excess()) {
      client.resource(pod).delete();
      events.warning(
          pod,
          "ExcessPod",
          "pod group " + name + " already has its " + group.totalCount() + " pods; deleted");
    }
    if (!ownsAll(workload, group.members())) {
      // Replacements join the owners, so the garbage collector keeps the Workload while any
      // member exists, and its events reach them.
      Workload copy = Copies.deep(workload);
      copy.getMetadata().setOwnerReferences(owners(workload, group.members()));
      client.resource(copy).update();
      return;
    }
    if (!StatusConditions.hasQuotaReserved(workload)
        || !StatusConditions.isTrue(workload, StatusConditions.ADMITTED)) {
      return; // its pods wait behind the gate
    }
    if (group.toRelease().isEmpty()) {
      if (podsReady) {
        PodAdapter adapter = new PodAdapter();
        int ready = group.members().stream().mapToInt(adapter::readyPods).sum();
        PodsReadyCondition.sync(client, ready, workload, events, clock.instant());
      }
      return;
    }
    // Releasing spends the quota: decided on the stored Workload, as WorkloadLifecycle.start does.
    Workload live = client.resource(workload).get();
    if (live == null || !WorkloadLifecycle.holdsAdmission(live)) {
      return;
    }
    for (Pod pod : group.unfitting(live)) {
      events.warning(
          pod,
          "PodNotInWorkload",
          "pod group "
              + name
              + "'s Workload was admitted for other pods (its role's podSet asks for other"
              + " requests, or it has no podSet for the pod's role); it stays gated");
    }
    List<PodGroup.Release> release = group.releases(live);
    if (release.isEmpty()) {
      return;
    }
    for (PodGroup.Release r : release) {
      client.resource(PodAdapter.released(r.pod(), live, flavors, r.podSet(), r.domain())).update();
    }
    events.normal(
        event,
        "Started",
        release.size()
            + " pod(s) of group "
            + name
            + " admitted by ClusterQueue "
            + live.getStatus().admission.clusterQueue);
  }

  private void create(
      KubernetesClient client, PodGroup group, Pod event, Consumer<Workload> created) {
    Pod first = group.members().get(0);
    Workload workload =
        WorkloadNames.newWorkload(
            first,
            "v1",
            "Pod",
            group.name(),
            group.podSets(),
            priorities.resolve(first.getMetadata().getLabels(), PodAdapter.template(first)));
    Map<String, String> labels = new HashMap<>(workload.getMetadata().getLabels());
    labels.put(Berth.OWNER_KIND_LABEL, OWNER_KIND);
    workload.getMetadata().setLabels(labels);
    workload.getMetadata().setOwnerReferences(owners(workload, group.members()));
    workload.getSpec().maximumExecutionTimeSeconds =
        WorkloadNames.maxExecTime(first.getMetadata().getLabels());
    String uncharged = devices.charge(client, workload);
    if (uncharged != null) {
      // Never run uncharged: no Workload, so the group's pods stay gated until it is fixed.
      events.warning(event, "InvalidWorkload", "Workload not created: " + uncharged);
      return;
    }
    try {
      created.accept(client.resource(workload).create());
      events.normal(event, "CreatedWorkload", "Created Workload " + group.name());
    } catch (KubernetesClientException e) {
      if (ApiErrors.invalid(e)) {
        events.warning(event, "InvalidWorkload", "Workload not created: " + e.getMessage());
        return;
      }
      if (!ApiErrors.alreadyExists(e)) {
        throw e;
      }
    }
  }

  private static boolean ownsAll(Workload workload, List<Pod> members) {
    Set<String> owners = ownerUids(workload);
    return members.stream().allMatch(p -> owners.contains(p.getMetadata().getUid()));
  }

  private static Set<String> ownerUids(Workload workload) {
    return workload.getMetadata().getOwnerReferences() == null
        ? Set.of()
        : workload.getMetadata().getOwnerReferences().stream()
            .map(OwnerReference::getUid)
            .collect(Collectors.toSet());
  }

  /** The Workload's pod owners, and every member's: none is its controller (a group has none). */
  private static List<OwnerReference> owners(Workload workload, List<Pod> members) {
    Map<String, OwnerReference> byUid = new java.util.LinkedHashMap<>();
    if (workload.getMetadata().getOwnerReferences() != null) {
      for (OwnerReference o : workload.getMetadata().getOwnerReferences()) {
        if (o.getController() == null || !o.getController()) {
          byUid.put(o.getUid(), o);
        }
      }
    }
    for (Pod pod : members) {
      byUid.putIfAbsent(
          pod.getMetadata().getUid(),
          new OwnerReferenceBuilder()
              .withApiVersion("v1")
              .withKind("Pod")
              .withName(pod.getMetadata().getName())
              .withUid(pod.getMetadata().getUid())
              .withBlockOwnerDeletion(true)
              .build());
    }
    return List.copyOf(byUid.values());
  }
}
