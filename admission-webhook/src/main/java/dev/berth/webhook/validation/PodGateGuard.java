package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Berth;
import java.util.List;
import java.util.Objects;

/**
 * While a pod waits behind Berth's topology gate, where it may run is the operator's to decide: it
 * releases the pod with one write that adds its domain's node labels to the nodeSelector and
 * removes the gate. Anyone else removing the gate would let kube-scheduler place the pod outside
 * its domain; anyone else adding to the nodeSelector (the API server allows additions on a gated
 * pod) would steer it or make the operator's release fail, and so would adding tolerations (also
 * allowed on any pod); taking Berth's pod labels away would hide the pod from this check and from
 * the operator. Other gates stay their owners' to remove.
 *
 * <p>A queued plain Pod ({@link PlainPods#isQueued}) is held the same way by Berth's admission
 * gate: only the operator removes it, adding its flavors' node labels and tolerations in the same
 * write. Its tolerations stay the operator's after that too (the API server lets anyone add
 * tolerations to a running pod, which would let it stay on, or move to, nodes of a flavor it was
 * not admitted to), and so do its queue-name and managed labels (taking them off would hide it from
 * the operator and from this check). Its requests need no rule here: the API server keeps a pod's
 * containers, and in-place resizing goes through {@code pods/resize}, which the {@code edit} role
 * does not grant.
 */
public final class PodGateGuard {
  private static final FieldPath GATES = FieldPath.root("spec").child("schedulingGates");
  private static final FieldPath NODE_SELECTOR = FieldPath.root("spec").child("nodeSelector");
  private static final FieldPath TOLERATIONS = FieldPath.root("spec").child("tolerations");
  private static final FieldPath LABELS = FieldPath.root("metadata").child("labels");

  private final RequestGuard guard;

  public PodGateGuard(RequestGuard guard) {
    this.guard = guard;
  }

  public List<FieldError> checkUpdate(JsonNode old, JsonNode pod, String username) {
    if (guard.isOperator(username)) {
      return List.of();
    }
    if (PlainPods.isQueued(old)) {
      return checkQueued(old, pod, username);
    }
    if (!gated(old)) {
      return List.of();
    }
    String who =
        "; only the Berth operator may, when it releases the pod into its topology"
            + " domain (user \""
            + username
            + "\" may not)";
    Errors errors = new Errors();
    if (!gated(pod)) {
      errors.add(
          FieldError.forbidden(
              GATES,
              "the "
                  + Berth.TOPOLOGY_SCHEDULING_GATE
                  + " scheduling gate cannot be removed"
                  + who));
    }
    if (!old.at("/spec/nodeSelector").equals(pod.at("/spec/nodeSelector"))) {
      errors.add(
          FieldError.forbidden(
              NODE_SELECTOR,
              "cannot change while the pod waits behind the "
                  + Berth.TOPOLOGY_SCHEDULING_GATE
                  + " gate"
                  + who));
    }
    // Kubernetes lets anyone who may update a pod add tolerations; on a pod not yet scheduled
    // that widens where it may land (tainted nodes of its flavor), which is the operator's call.
    if (!old.at("/spec/tolerations").equals(pod.at("/spec/tolerations"))) {
      errors.add(
          FieldError.forbidden(
              TOLERATIONS,
              "cannot change while the pod waits behind the "
                  + Berth.TOPOLOGY_SCHEDULING_GATE
                  + " gate"
                  + who));
    }
    fixedLabels(
        old,
        pod,
        List.of(Berth.PODSET_LABEL, Berth.WORKLOAD_LABEL),
        "cannot change while the pod waits behind the "
            + Berth.TOPOLOGY_SCHEDULING_GATE
            + " gate"
            + who,
        errors);
    return errors.toList();
  }

  /** One error per label of {@code labels} whose value the update changes (or adds, or drops). */
  private static void fixedLabels(
      JsonNode old, JsonNode pod, List<String> labels, String message, Errors errors) {
    for (String label : labels) {
      String before = old.path("metadata").path("labels").path(label).asText(null);
      String after = pod.path("metadata").path("labels").path(label).asText(null);
      if (!Objects.equals(before, after)) {
        errors.add(FieldError.forbidden(LABELS.key(label), message));
      }
    }
  }

  private static List<FieldError> checkQueued(JsonNode old, JsonNode pod, String username) {
    boolean waiting = PlainPods.gated(old, Berth.ADMISSION_SCHEDULING_GATE);
    String state = waiting ? "while the pod waits for admission" : "once the pod is admitted";
    String who =
        "; only the Berth operator may, when it admits the pod to its flavors (user \""
            + username
            + "\" may not)";
    Errors errors = new Errors();
    if (waiting && !PlainPods.gated(pod, Berth.ADMISSION_SCHEDULING_GATE)) {
      errors.add(
          FieldError.forbidden(
              GATES,
              "the "
                  + Berth.ADMISSION_SCHEDULING_GATE
                  + " scheduling gate cannot be removed"
                  + who));
    }
    if (!old.at("/spec/nodeSelector").equals(pod.at("/spec/nodeSelector"))) {
      errors.add(FieldError.forbidden(NODE_SELECTOR, "cannot change " + state + who));
    }
    if (!old.at("/spec/tolerations").equals(pod.at("/spec/tolerations"))) {
      errors.add(FieldError.forbidden(TOLERATIONS, "cannot change " + state + who));
    }
    fixedLabels(
        old,
        pod,
        List.of(Berth.QUEUE_NAME_LABEL, Berth.MANAGED_LABEL, Berth.POD_GROUP_NAME_LABEL),
        "cannot change on a pod Berth queues; delete the pod and create it anew instead",
        errors);
    for (String fixed :
        List.of(Berth.POD_GROUP_TOTAL_COUNT_ANNOTATION, Berth.POD_GROUP_ROLE_ANNOTATION)) {
      if (!Objects.equals(
          old.path("metadata").path("annotations").path(fixed).asText(null),
          pod.path("metadata").path("annotations").path(fixed).asText(null))) {
        errors.add(
            FieldError.forbidden(
                FieldPath.root("metadata").child("annotations").key(fixed),
                "cannot change on a pod Berth queues; its group's Workload was made for it"));
      }
    }
    return errors.toList();
  }

  /** Whether the pod carries Berth's gate (other controllers' gates do not count). */
  static boolean gated(JsonNode pod) {
    for (JsonNode gate : pod.path("spec").path("schedulingGates")) {
      if (Berth.TOPOLOGY_SCHEDULING_GATE.equals(gate.path("name").asText(null))) {
        return true;
      }
    }
    return false;
  }
}
