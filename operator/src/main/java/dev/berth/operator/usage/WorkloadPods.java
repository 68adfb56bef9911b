package dev.berth.operator.usage;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The pods each workload's owner has started, with their podSet, for the DCGM join (the exporter's
 * series name pods, not workloads). A Job's pods are found by their controller's uid, a JobSet's by
 * its jobset-name label; only pods of known workloads' owners are kept. Names are kept after a pod
 * ends, until the workload goes, because a run is measured after it ended. Loop thread only.
 */
public final class WorkloadPods {
  static final String JOBSET_NAME_LABEL = "jobset.sigs.k8s.io/jobset-name";
  static final String REPLICATED_JOB_LABEL = "jobset.sigs.k8s.io/replicatedjob-name";

  /** At most this many pods per owner are kept (the query names each). */
  static final int MAX_PODS = 512;

  /** Per owner: pod name → podSet ("" when the pod does not say, for a one-podSet workload). */
  private final Map<String, Map<String, String>> byOwner = new HashMap<>();

  /** A workload is known: its owner's pods are kept from now on. */
  public void workload(Workload wl) {
    ownerKeys(wl).forEach(key -> byOwner.computeIfAbsent(key, k -> new LinkedHashMap<>()));
  }

  public void pod(Pod pod) {
    Map<String, String> labels =
        pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
    String owner =
        labels.containsKey(JOBSET_NAME_LABEL)
            ? jobSetKey(pod.getMetadata().getNamespace(), labels.get(JOBSET_NAME_LABEL))
            : controllerUid(pod);
    Map<String, String> pods = owner == null ? null : byOwner.get(owner);
    if (pods == null) {
      return;
    }
    String podSet =
        labels.getOrDefault(Berth.PODSET_LABEL, labels.getOrDefault(REPLICATED_JOB_LABEL, ""));
    if (pods.size() < MAX_PODS || pods.containsKey(pod.getMetadata().getName())) {
      pods.put(pod.getMetadata().getName(), podSet);
    }
  }

  /** Pod name → podSet of the workload's owner's pods seen so far. */
  public Map<String, String> of(Workload wl) {
    var podSets =
        wl.getSpec() == null || wl.getSpec().podSets == null
            ? java.util.List.<dev.berth.api.v1beta1.PodSet>of()
            : wl.getSpec().podSets;
    String only = podSets.size() == 1 ? podSets.get(0).name : "";
    Map<String, String> out = new LinkedHashMap<>();
    for (String key : ownerKeys(wl)) {
      byOwner
          .getOrDefault(key, Map.of())
          .forEach((pod, podSet) -> out.put(pod, podSet.isEmpty() ? only : podSet));
    }
    return out;
  }

  public void forget(Workload wl) {
    ownerKeys(wl).forEach(byOwner::remove);
  }

  private static java.util.List<String> ownerKeys(Workload wl) {
    java.util.List<String> keys = new java.util.ArrayList<>();
    for (OwnerReference ref : wl.getMetadata().getOwnerReferences()) {
      keys.add(
          "JobSet".equals(ref.getKind())
              ? jobSetKey(wl.getMetadata().getNamespace(), ref.getName())
              : ref.getUid());
    }
    return keys;
  }

  private static String controllerUid(Pod pod) {
    for (OwnerReference ref : pod.getMetadata().getOwnerReferences()) {
      if (Boolean.TRUE.equals(ref.getController())) {
        return ref.getUid();
      }
    }
    return null;
  }

  private static String jobSetKey(String namespace, String name) {
    return "jobset:" + namespace + "/" + name;
  }
}
