package dev.berth.operator.integration.pod;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.integration.Integration;
import dev.berth.operator.integration.PodTemplates;
import dev.berth.operator.integration.PriorityResolver;
import dev.berth.operator.integration.WorkloadNames;
import dev.berth.operator.kube.Copies;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A plain Pod as one podSet {@code main} of one pod. A pod cannot be suspended: it is created
 * behind Berth's admission gate ({@link Berth#ADMISSION_SCHEDULING_GATE}, by the pod webhook),
 * which counts as suspended, and started by removing the gate in the same write that adds its
 * flavors' node labels and tolerations (the API server allows both on a gated pod). A gate cannot
 * be added back, so a started pod is stopped by deleting it ({@link #stoppedByDeletion}), and its
 * quota goes back once it is gone.
 */
public final class PodAdapter implements Integration<Pod> {
  public static final String PODSET = "main";

  @Override
  public String kind() {
    return "Pod";
  }

  /**
   * Only the pods the pod webhook gated at creation ({@link Berth#MANAGED_LABEL}) and without a
   * controller owner other than a ReplicaSet or a StatefulSet: a Job's pods (whose template may
   * carry the queue label) are charged through the Job, and a labelled pod created before the
   * integration was on is left alone. A pod of a group ({@link Berth#POD_GROUP_NAME_LABEL}) is its
   * group's ({@code PodGroupReconciler}).
   */
  @Override
  public boolean manages(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    return labels != null && !labels.containsKey(Berth.POD_GROUP_NAME_LABEL) && isQueued(pod);
  }

  /**
   * A plain Pod the pod webhook gated at creation (queue label, {@link Berth#MANAGED_LABEL}), alone
   * or in a group, without a controller owner or owned by a ReplicaSet: a Deployment's pods are
   * each queued on their own (the deployment integration). A ReplicaSet re-creates a pod this
   * deletes on eviction, and the new pod queues again, as Kueue's Deployment pods do.
   */
  static boolean isQueued(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    List<OwnerReference> owners = pod.getMetadata().getOwnerReferences();
    return labels != null
        && labels.containsKey(Berth.QUEUE_NAME_LABEL)
        && "true".equals(labels.get(Berth.MANAGED_LABEL))
        && (owners == null
            || owners.stream()
                .noneMatch(o -> Boolean.TRUE.equals(o.getController()) && !isServing(o)));
  }

  private static boolean isServing(OwnerReference owner) {
    return ("ReplicaSet".equals(owner.getKind()) || "StatefulSet".equals(owner.getKind()))
        && "apps/v1".equals(owner.getApiVersion());
  }

  @Override
  public boolean stoppedByDeletion() {
    return true;
  }

  @Override
  public String workloadName(Pod pod) {
    return WorkloadNames.of("pod", pod);
  }

  @Override
  public Workload newWorkload(Pod pod, PriorityResolver priorities) {
    Workload workload =
        WorkloadNames.newWorkload(
            pod,
            "v1",
            kind(),
            workloadName(pod),
            podSets(pod),
            priorities.resolve(pod.getMetadata().getLabels(), template(pod)));
    workload.getSpec().maximumExecutionTimeSeconds =
        WorkloadNames.maxExecTime(pod.getMetadata().getLabels());
    return workload;
  }

  @Override
  public List<PodSet> podSets(Pod pod) {
    return List.of(new PodSet(PODSET, 1, template(pod)));
  }

  /** The pod as a template: its labels, annotations and spec, without Berth's gate. */
  static PodTemplateSpec template(Pod pod) {
    ObjectMeta meta = new ObjectMeta();
    meta.setLabels(copy(pod.getMetadata().getLabels()));
    meta.setAnnotations(copy(pod.getMetadata().getAnnotations()));
    PodTemplateSpec template = new PodTemplateSpec(meta, Copies.deep(pod.getSpec()));
    template.getSpec().setNodeName(null);
    List<PodSchedulingGate> gates = template.getSpec().getSchedulingGates();
    if (gates != null) {
      List<PodSchedulingGate> others =
          gates.stream().filter(g -> !Berth.ADMISSION_SCHEDULING_GATE.equals(g.getName())).toList();
      template.getSpec().setSchedulingGates(others.isEmpty() ? null : others);
    }
    return template;
  }

  private static Map<String, String> copy(Map<String, String> map) {
    return map == null || map.isEmpty() ? null : new LinkedHashMap<>(map);
  }

  /** Waiting behind Berth's admission gate. */
  @Override
  public boolean isSuspended(Pod pod) {
    List<PodSchedulingGate> gates = pod.getSpec().getSchedulingGates();
    return gates != null
        && gates.stream().anyMatch(g -> Berth.ADMISSION_SCHEDULING_GATE.equals(g.getName()));
  }

  /** Never written: a pod is stopped by deletion ({@link #stoppedByDeletion}). */
  @Override
  public Pod suspended(Pod pod) {
    throw new UnsupportedOperationException("a pod's scheduling gate cannot be added back");
  }

  /** The gate removed, the flavors' node labels in its nodeSelector and their tolerations added. */
  @Override
  public Pod admitted(Pod pod, Workload workload, FlavorLookup flavors) {
    return released(pod, workload, flavors, PODSET, Map.of());
  }

  /**
   * {@link #admitted}, for a pod of a plain Pod's or a pod group's Workload, counted in {@code
   * podSet}; a topology-placed pod also gets its {@code domain}'s node labels (a pod made before
   * its Workload never had the topology gate, so it is placed here, in the same write).
   */
  static Pod released(
      Pod pod, Workload workload, FlavorLookup flavors, String podSet, Map<String, String> domain) {
    Pod result = Copies.deep(pod);
    PodSetAssignment assignment =
        workload.getStatus().admission.podSetAssignments.stream()
            .filter(a -> podSet.equals(a.name))
            .findFirst()
            .orElseThrow();
    PodTemplateSpec template = new PodTemplateSpec(result.getMetadata(), result.getSpec());
    PodTemplates.inject(template, assignment, workload.getMetadata().getUid(), flavors);
    PodTemplates.applyCheckUpdates(template, workload, podSet);
    if (!domain.isEmpty()) {
      Map<String, String> selector = new LinkedHashMap<>();
      if (template.getSpec().getNodeSelector() != null) {
        selector.putAll(template.getSpec().getNodeSelector());
      }
      selector.putAll(domain);
      template.getSpec().setNodeSelector(selector);
    }
    result.setMetadata(template.getMetadata());
    result.setSpec(template.getSpec());
    List<PodSchedulingGate> gates =
        result.getSpec().getSchedulingGates().stream()
            .filter(g -> !Berth.ADMISSION_SCHEDULING_GATE.equals(g.getName()))
            .toList();
    result.getSpec().setSchedulingGates(gates.isEmpty() ? null : gates);
    return result;
  }

  /**
   * Unchanged: a pod still gated when its Workload is evicted was never changed; a started one is
   * deleted instead of restored.
   */
  @Override
  public Pod restored(Pod pod, Workload workload) {
    Pod copy = Copies.deep(pod);
    if (copy.getMetadata().getAnnotations() == null) {
      copy.getMetadata().setAnnotations(new LinkedHashMap<>());
    }
    return copy;
  }

  /**
   * {@code Gated} while Berth's admission gate holds it, else its phase ({@code Pending}, {@code
   * Running}, {@code Succeeded}, {@code Failed}); a pod group's Workload counts its pods' states.
   */
  @Override
  public String ownerStatus(Pod pod) {
    if (isSuspended(pod)) {
      return "Gated";
    }
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return phase == null || phase.isEmpty() ? "Pending" : phase;
  }

  @Override
  public Optional<Finish> finished(Pod pod) {
    String phase = phase(pod);
    if ("Succeeded".equals(phase)) {
      return Optional.of(new Finish(true, "Pod succeeded"));
    }
    if ("Failed".equals(phase)) {
      String reason = pod.getStatus().getReason();
      String message = pod.getStatus().getMessage();
      return Optional.of(
          new Finish(
              false,
              "Pod failed"
                  + (reason == null ? "" : ": " + reason)
                  + (message == null ? "" : " (" + message + ")")));
    }
    return Optional.empty();
  }

  /**
   * One while it may run: released and not finished, terminating included (a deleted pod holds its
   * node's resources until the kubelet has stopped it, and then it is gone).
   */
  @Override
  public int activePods(Pod pod) {
    return isSuspended(pod) || finished(pod).isPresent() ? 0 : 1;
  }

  @Override
  public int readyPods(Pod pod) {
    if ("Succeeded".equals(phase(pod))) {
      return 1;
    }
    List<PodCondition> conditions =
        pod.getStatus() == null ? null : pod.getStatus().getConditions();
    return conditions != null
            && conditions.stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()))
        ? 1
        : 0;
  }

  private static String phase(Pod pod) {
    return pod.getStatus() == null ? null : pod.getStatus().getPhase();
  }
}
