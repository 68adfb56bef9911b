package dev.berth.webhook.validation;

import dev.berth.api.v1beta1.Admission;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.TopologyRequest;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A Workload: podSets Berth can count, and, once quota is reserved, a spec that no longer moves
 * under the admission decision.
 */
public final class WorkloadValidator {
  static final int MAX_POD_SETS = 18;
  private static final Map<String, String> PRIORITY_CLASS_KINDS =
      Map.of("berth.dev", "WorkloadPriorityClass", "scheduling.k8s.io", "PriorityClass");

  private WorkloadValidator() {}

  public static List<FieldError> validate(Workload wl) {
    Errors errors = new Errors();
    WorkloadSpec spec = wl.getSpec();
    FieldPath sp = FieldPath.root("spec");
    if (spec == null) {
      errors.add(FieldError.required(sp, "a workload needs a spec with podSets"));
      return errors.toList();
    }
    checkPodSets(spec.podSets, sp.child("podSets"), errors);
    errors.dnsSubdomain(sp.child("queueName"), spec.queueName);
    checkPriorityClassRef(spec.priorityClassRef, sp.child("priorityClassRef"), errors);
    return errors.toList();
  }

  public static List<FieldError> validateUpdate(Workload old, Workload wl) {
    Errors errors = new Errors();
    errors.addAll(validate(wl));
    if (!quotaReserved(old) || wl.getSpec() == null || old.getSpec() == null) {
      return errors.toList();
    }
    String immutable = "field is immutable while quota is reserved";
    FieldPath sp = FieldPath.root("spec");
    if (!Objects.equals(old.getSpec().queueName, wl.getSpec().queueName)) {
      errors.add(FieldError.invalid(sp.child("queueName"), wl.getSpec().queueName, immutable));
    }
    if (!Objects.equals(old.getSpec().priority, wl.getSpec().priority)) {
      errors.add(FieldError.invalid(sp.child("priority"), wl.getSpec().priority, immutable));
    }
    List<PodSet> before = old.getSpec().podSets == null ? List.of() : old.getSpec().podSets;
    List<PodSet> after = wl.getSpec().podSets == null ? List.of() : wl.getSpec().podSets;
    if (before.size() != after.size()) {
      errors.add(FieldError.invalid(sp.child("podSets"), after.size() + " podSets", immutable));
      return errors.toList();
    }
    for (int i = 0; i < after.size(); i++) {
      comparePodSet(before.get(i), after.get(i), sp.child("podSets").index(i), immutable, errors);
    }
    return errors.toList();
  }

  /**
   * Rules for a write to the status subresource: an admission must fit the podSets, and once set it
   * only goes away whole (eviction), it is never edited in place.
   */
  public static List<FieldError> validateStatusUpdate(Workload old, Workload wl) {
    Errors errors = new Errors();
    Admission admission = wl.getStatus() == null ? null : wl.getStatus().admission;
    Admission before = old.getStatus() == null ? null : old.getStatus().admission;
    FieldPath ap = FieldPath.root("status").child("admission");
    if (admission != null) {
      checkAdmission(admission, wl.getSpec(), ap, errors);
    }
    if (admission != null && before != null && !sameJson(admission, before)) {
      errors.add(
          FieldError.invalid(
              ap,
              "changed admission",
              "field is immutable: an admission is cleared (evicted) before a new one is set"));
    }
    return errors.toList();
  }

  /** Whether the workload holds quota: its QuotaReserved condition is True. */
  public static boolean quotaReserved(Workload wl) {
    return wl.getStatus() != null
        && wl.getStatus().conditions != null
        && wl.getStatus().conditions.stream()
            .anyMatch(c -> c != null && "QuotaReserved".equals(c.type) && c.isTrue());
  }

  private static void checkPodSets(List<PodSet> podSets, FieldPath path, Errors errors) {
    if (podSets == null || podSets.isEmpty()) {
      errors.add(FieldError.required(path, "a workload has at least one podSet"));
      return;
    }
    if (podSets.size() > MAX_POD_SETS) {
      errors.add(FieldError.tooMany(path, podSets.size(), MAX_POD_SETS));
    }
    Set<String> names = new HashSet<>();
    int withMinCount = 0;
    for (int i = 0; i < podSets.size(); i++) {
      PodSet ps = podSets.get(i);
      FieldPath pp = path.index(i);
      if (ps == null) {
        errors.add(FieldError.required(pp, "a podSet must not be null"));
        continue;
      }
      if (ps.name == null || ps.name.isEmpty()) {
        errors.add(FieldError.required(pp.child("name"), "a podSet name is required"));
      } else {
        errors.dnsLabel(pp.child("name"), ps.name);
        if (!names.add(ps.name)) {
          errors.add(FieldError.duplicate(pp.child("name"), ps.name));
        }
      }
      if (ps.count == null) {
        errors.add(FieldError.required(pp.child("count"), "a podSet count is required"));
      } else if (ps.count < 0) {
        errors.add(
            FieldError.invalid(pp.child("count"), ps.count, "must be greater than or equal to 0"));
      }
      if (ps.minCount != null) {
        withMinCount++;
        if (withMinCount > 1) {
          errors.add(
              FieldError.forbidden(pp.child("minCount"), "at most one podSet may use minCount"));
        }
        if (ps.minCount < 1) {
          errors.add(
              FieldError.invalid(
                  pp.child("minCount"), ps.minCount, "must be greater than or equal to 1"));
        } else if (ps.count != null && ps.minCount > ps.count) {
          errors.add(
              FieldError.invalid(
                  pp.child("minCount"),
                  ps.minCount,
                  "must be less than or equal to count (" + ps.count + ")"));
        }
      }
      if (ps.template == null) {
        errors.add(FieldError.required(pp.child("template"), "a pod template is required"));
      } else {
        PodTemplateRules.validate(ps.template, pp.child("template"), errors, ps.count);
      }
      checkTopologyRequest(ps.topologyRequest, ps.count, pp.child("topologyRequest"), errors);
    }
  }

  private static void checkTopologyRequest(
      TopologyRequest tr, Integer count, FieldPath path, Errors errors) {
    if (tr == null) {
      return;
    }
    errors.labelKey(path.child("required"), tr.required);
    errors.labelKey(path.child("preferred"), tr.preferred);
    errors.labelKey(path.child("podSetSliceRequiredTopology"), tr.podSetSliceRequiredTopology);
    errors.labelKey(path.child("podIndexLabel"), tr.podIndexLabel);
    errors.labelKey(path.child("subGroupIndexLabel"), tr.subGroupIndexLabel);
    checkSubGroups(tr, count, path, errors);
    if (tr.podSetGroupName != null && tr.podSetGroupName.length() > 256) {
      errors.add(
          FieldError.invalid(
              path.child("podSetGroupName"),
              tr.podSetGroupName,
              "must be no more than 256 characters"));
    }
    int modes =
        (tr.required != null ? 1 : 0)
            + (tr.preferred != null ? 1 : 0)
            + (Boolean.TRUE.equals(tr.unconstrained) ? 1 : 0);
    if (modes > 1) {
      errors.add(
          FieldError.invalid(
              path,
              "required/preferred/unconstrained",
              "only one of required, preferred and unconstrained may be set"));
    }
    if ((tr.podSetSliceRequiredTopology == null) != (tr.podSetSliceSize == null)) {
      errors.add(
          FieldError.required(
              path.child(
                  tr.podSetSliceSize == null ? "podSetSliceSize" : "podSetSliceRequiredTopology"),
              "podSetSliceRequiredTopology and podSetSliceSize go together"));
    }
    if (tr.podSetSliceSize != null) {
      if (tr.podSetSliceSize < 1) {
        errors.add(
            FieldError.invalid(
                path.child("podSetSliceSize"),
                tr.podSetSliceSize,
                "must be greater than or equal to 1"));
      } else if (count != null && tr.podSetSliceSize > count) {
        errors.add(
            FieldError.invalid(
                path.child("podSetSliceSize"),
                tr.podSetSliceSize,
                "must be less than or equal to the podSet count (" + count + ")"));
      }
    }
  }

  /** The pods of a podSet split into subGroupCount groups of equal size, each indexed. */
  private static void checkSubGroups(
      TopologyRequest tr, Integer count, FieldPath path, Errors errors) {
    if ((tr.subGroupIndexLabel == null) != (tr.subGroupCount == null)) {
      errors.add(
          FieldError.required(
              path.child(tr.subGroupCount == null ? "subGroupCount" : "subGroupIndexLabel"),
              "subGroupIndexLabel and subGroupCount go together"));
    }
    if (tr.subGroupIndexLabel != null && tr.podIndexLabel == null) {
      errors.add(
          FieldError.required(
              path.child("podIndexLabel"),
              "a pod's rank within its subgroup is read from podIndexLabel"));
    }
    if (tr.subGroupCount == null) {
      return;
    }
    if (tr.subGroupCount < 1) {
      errors.add(
          FieldError.invalid(
              path.child("subGroupCount"), tr.subGroupCount, "must be greater than or equal to 1"));
    } else if (count != null && count % tr.subGroupCount != 0) {
      errors.add(
          FieldError.invalid(
              path.child("subGroupCount"),
              tr.subGroupCount,
              "must divide the podSet count (" + count + ") into groups of equal size"));
    }
  }

  private static void checkPriorityClassRef(
      WorkloadSpec.PriorityClassRef ref, FieldPath path, Errors errors) {
    if (ref == null) {
      return;
    }
    if (ref.name == null || ref.name.isEmpty()) {
      errors.add(FieldError.required(path.child("name"), "the priority class name is required"));
    } else {
      errors.dnsSubdomain(path.child("name"), ref.name);
    }
    String group = ref.group == null ? "berth.dev" : ref.group;
    if (!PRIORITY_CLASS_KINDS.containsKey(group)) {
      errors.add(
          FieldError.notSupported(
              path.child("group"),
              ref.group,
              List.copyOf(PRIORITY_CLASS_KINDS.keySet().stream().sorted().toList())));
    } else if (ref.kind != null && !ref.kind.equals(PRIORITY_CLASS_KINDS.get(group))) {
      errors.add(
          FieldError.invalid(
              path.child("kind"),
              ref.kind,
              "must be " + PRIORITY_CLASS_KINDS.get(group) + " for group " + group));
    }
  }

  private static void comparePodSet(
      PodSet before, PodSet after, FieldPath path, String immutable, Errors errors) {
    if (before == null || after == null) {
      if (before != after) {
        errors.add(FieldError.invalid(path, null, immutable));
      }
      return;
    }
    if (!Objects.equals(before.name, after.name)) {
      errors.add(FieldError.invalid(path.child("name"), after.name, immutable));
    }
    if (!Objects.equals(before.count, after.count)) {
      errors.add(FieldError.invalid(path.child("count"), after.count, immutable));
    }
    if (!Objects.equals(before.minCount, after.minCount)) {
      errors.add(FieldError.invalid(path.child("minCount"), after.minCount, immutable));
    }
    if (!sameJson(before.template, after.template)) {
      errors.add(FieldError.invalid(path.child("template"), "changed pod template", immutable));
    }
    if (!sameJson(before.topologyRequest, after.topologyRequest)) {
      errors.add(FieldError.invalid(path.child("topologyRequest"), "changed", immutable));
    }
  }

  private static void checkAdmission(
      Admission admission, WorkloadSpec spec, FieldPath path, Errors errors) {
    if (admission.clusterQueue == null || admission.clusterQueue.isEmpty()) {
      errors.add(FieldError.required(path.child("clusterQueue"), "the ClusterQueue is required"));
    } else {
      errors.dnsSubdomain(path.child("clusterQueue"), admission.clusterQueue);
    }
    Map<String, PodSet> podSets = new HashMap<>();
    if (spec != null && spec.podSets != null) {
      spec.podSets.stream().filter(Objects::nonNull).forEach(p -> podSets.put(p.name, p));
    }
    List<PodSetAssignment> assignments =
        admission.podSetAssignments == null ? List.of() : admission.podSetAssignments;
    if (assignments.size() != podSets.size()) {
      errors.add(
          FieldError.invalid(
              path.child("podSetAssignments"),
              assignments.size(),
              "must assign every podSet (" + podSets.size() + "): admission is all or nothing"));
    }
    for (int i = 0; i < assignments.size(); i++) {
      PodSetAssignment a = assignments.get(i);
      FieldPath ap = path.child("podSetAssignments").index(i);
      PodSet ps = a == null ? null : podSets.get(a.name);
      if (ps == null) {
        errors.add(
            FieldError.invalid(
                ap.child("name"), a == null ? null : a.name, "must name a podSet of the workload"));
      } else if (a.count != null
          && ps.count != null
          && (a.count > ps.count || a.count < (ps.minCount == null ? ps.count : ps.minCount))) {
        errors.add(
            FieldError.invalid(
                ap.child("count"), a.count, "must be between the podSet's minCount and count"));
      }
    }
  }

  static boolean sameJson(Object a, Object b) {
    return Objects.equals(
        Serialization.jsonMapper().valueToTree(a), Serialization.jsonMapper().valueToTree(b));
  }

  static boolean conditionTrue(List<Condition> conditions, String type) {
    return conditions != null
        && conditions.stream().anyMatch(c -> c != null && type.equals(c.type) && c.isTrue());
  }
}
