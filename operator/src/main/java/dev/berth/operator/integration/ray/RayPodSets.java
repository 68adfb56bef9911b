package dev.berth.operator.integration.ray;

import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.integration.Integration.FlavorLookup;
import dev.berth.operator.integration.PodTemplates;
import dev.berth.operator.integration.PriorityResolver;
import dev.berth.operator.integration.TopologyAnnotations;
import dev.berth.operator.integration.WorkloadNames;
import dev.berth.operator.kube.Copies;
import dev.berth.webhook.integration.KubeRayDefaults;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The pod sets of a Ray cluster's spec (a RayCluster's, or the one a RayJob embeds), shared by both
 * adapters: a podSet {@code head} of one pod, then one per worker group of {@code replicas} ×
 * {@code numOfHosts} pods (each 1 when unset). Admitted whole: KubeRay's {@code minReplicas} is the
 * autoscaler's floor, not a request to run on fewer pods, and Kueue gives Ray pod sets no minimum
 * either, so there is no partial admission (docs/ray.md).
 */
final class RayPodSets {
  /** The head's podSet name; the webhook refuses a worker group of that name. */
  static final String HEAD = "head";

  private RayPodSets() {}

  static int workers(RayCluster.WorkerGroup group) {
    int replicas = group.replicas == null ? 1 : group.replicas;
    int hosts = group.numOfHosts == null || group.numOfHosts < 1 ? 1 : group.numOfHosts;
    return replicas * hosts;
  }

  static List<PodSet> of(RayCluster.Spec spec) {
    List<PodSet> podSets = new ArrayList<>();
    podSets.add(podSet(HEAD, 1, spec.headGroupSpec.template));
    for (RayCluster.WorkerGroup group : groups(spec)) {
      PodSet workers = podSet(group.groupName, workers(group), group.template);
      // KubeRay adds an init container to each worker pod: its pods ask for it.
      workers.template.getSpec().getInitContainers().add(KubeRayDefaults.waitGcsReady());
      podSets.add(workers);
    }
    return podSets;
  }

  /**
   * The Workload of a RayCluster or a RayJob: its pod sets, its priority from its labels or else
   * the head's pod template, and its maximum execution time.
   */
  static Workload newWorkload(
      HasMetadata owner,
      String kind,
      String name,
      List<PodSet> podSets,
      PodTemplateSpec head,
      PriorityResolver priorities) {
    Map<String, String> labels = owner.getMetadata().getLabels();
    Workload workload =
        WorkloadNames.newWorkload(
            owner, "ray.io/v1", kind, name, podSets, priorities.resolve(labels, head));
    workload.getSpec().maximumExecutionTimeSeconds = WorkloadNames.maxExecTime(labels);
    return workload;
  }

  static PodSet podSet(String name, int count, PodTemplateSpec template) {
    PodSet podSet = new PodSet(name, count, Copies.deep(template));
    podSet.topologyRequest = TopologyAnnotations.request(template);
    return podSet;
  }

  /** Each template of {@code spec} started under the Workload's assignment of its podSet. */
  static void admit(RayCluster.Spec spec, Workload workload, FlavorLookup flavors) {
    admit(spec.headGroupSpec.template, HEAD, workload, flavors);
    for (RayCluster.WorkerGroup group : groups(spec)) {
      admit(group.template, group.groupName, workload, flavors);
    }
  }

  static void admit(
      PodTemplateSpec template, String podSet, Workload workload, FlavorLookup flavors) {
    assignment(workload, podSet)
        .ifPresent(a -> PodTemplates.inject(template, a, workload.getMetadata().getUid(), flavors));
    PodTemplates.applyCheckUpdates(template, workload, podSet);
  }

  /** Each template of {@code spec} put back as the Workload keeps it. */
  static void restore(RayCluster.Spec spec, Workload workload) {
    restore(spec.headGroupSpec.template, HEAD, workload);
    for (RayCluster.WorkerGroup group : groups(spec)) {
      restore(group.template, group.groupName, workload);
    }
  }

  static void restore(PodTemplateSpec template, String podSet, Workload workload) {
    workload.getSpec().podSets.stream()
        .filter(ps -> podSet.equals(ps.name))
        .findFirst()
        .ifPresent(ps -> PodTemplates.restore(template, ps.template));
  }

  /** Labels every template of {@code spec} with {@code label}: {@code value}. */
  static void label(RayCluster.Spec spec, String label, String value) {
    label(spec.headGroupSpec.template, label, value);
    for (RayCluster.WorkerGroup group : groups(spec)) {
      label(group.template, label, value);
    }
  }

  static void label(PodTemplateSpec template, String label, String value) {
    if (template.getMetadata() == null) {
      template.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMeta());
    }
    Map<String, String> labels =
        new java.util.LinkedHashMap<>(
            template.getMetadata().getLabels() == null
                ? Map.of()
                : template.getMetadata().getLabels());
    labels.put(label, value);
    template.getMetadata().setLabels(labels);
  }

  private static Optional<PodSetAssignment> assignment(Workload workload, String podSet) {
    return workload.getStatus().admission.podSetAssignments.stream()
        .filter(a -> podSet.equals(a.name))
        .findFirst();
  }

  private static List<RayCluster.WorkerGroup> groups(RayCluster.Spec spec) {
    return spec.workerGroupSpecs == null ? List.of() : spec.workerGroupSpecs;
  }

  /** The pods of all pod sets. */
  static int total(List<PodSet> podSets) {
    return podSets.stream().mapToInt(ps -> ps.count).sum();
  }
}
