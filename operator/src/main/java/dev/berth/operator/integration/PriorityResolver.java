package dev.berth.operator.integration;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.WorkloadPriorityClass;
import dev.berth.api.v1beta1.WorkloadSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A workload's priority: the WorkloadPriorityClass named by {@code berth.dev/priority-class} wins
 * over the pod's priorityClassName; neither means 0.
 */
public final class PriorityResolver {
  private final KubernetesClient client;
  private final Map<String, Integer> workloadClasses = new ConcurrentHashMap<>();

  public PriorityResolver(KubernetesClient client) {
    this.client = client;
  }

  /** Fed by the WorkloadPriorityClass reconciler. */
  public void workloadPriorityClass(WorkloadPriorityClass wpc) {
    workloadClasses.put(wpc.getMetadata().getName(), wpc.getValue() == null ? 0 : wpc.getValue());
  }

  public void workloadPriorityClassDeleted(String name) {
    workloadClasses.remove(name);
  }

  /** The reference and value for a Job's or JobSet's labels and pod template. */
  public Resolved resolve(Map<String, String> labels, PodTemplateSpec template) {
    String wpcName = labels == null ? null : labels.get(Berth.PRIORITY_CLASS_LABEL);
    if (wpcName != null) {
      Integer value = workloadClasses.get(wpcName);
      if (value == null) {
        WorkloadPriorityClass wpc =
            client.resources(WorkloadPriorityClass.class).withName(wpcName).get();
        value = wpc == null || wpc.getValue() == null ? 0 : wpc.getValue();
      }
      return new Resolved(ref(Berth.GROUP, "WorkloadPriorityClass", wpcName), value);
    }
    String podClass =
        template == null || template.getSpec() == null
            ? null
            : template.getSpec().getPriorityClassName();
    if (podClass != null && !podClass.isEmpty()) {
      PriorityClass pc = client.scheduling().v1().priorityClasses().withName(podClass).get();
      return new Resolved(
          ref("scheduling.k8s.io", "PriorityClass", podClass),
          pc == null || pc.getValue() == null ? 0 : pc.getValue());
    }
    return new Resolved(null, 0);
  }

  private static WorkloadSpec.PriorityClassRef ref(String group, String kind, String name) {
    WorkloadSpec.PriorityClassRef ref = new WorkloadSpec.PriorityClassRef();
    ref.group = group;
    ref.kind = kind;
    ref.name = name;
    return ref;
  }

  /** A priority class reference (or none) and its value. */
  public record Resolved(WorkloadSpec.PriorityClassRef ref, int value) {}
}
