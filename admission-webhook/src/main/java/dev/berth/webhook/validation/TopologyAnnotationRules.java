package dev.berth.webhook.validation;

import dev.berth.api.v1beta1.Berth;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.List;
import java.util.Map;

/**
 * The topology annotations of a pod template: at most one of required, preferred and unconstrained;
 * levels that are label keys; a slice level and a whole positive slice size together, and only with
 * a placement mode. The operator turns them into the Workload's topologyRequest, so a bad value
 * must stop the Job here rather than its Workload later.
 */
final class TopologyAnnotationRules {
  private static final List<String> MODES =
      List.of(
          Berth.PODSET_REQUIRED_TOPOLOGY,
          Berth.PODSET_PREFERRED_TOPOLOGY,
          Berth.PODSET_UNCONSTRAINED_TOPOLOGY);

  private TopologyAnnotationRules() {}

  static void validate(ObjectMeta meta, FieldPath path, Integer podCount, Errors errors) {
    Map<String, String> annotations =
        meta == null || meta.getAnnotations() == null ? Map.of() : meta.getAnnotations();
    List<String> modes = MODES.stream().filter(annotations::containsKey).toList();
    if (modes.size() > 1) {
      errors.add(
          FieldError.invalid(
              path,
              String.join(", ", modes),
              "only one of " + String.join(", ", MODES) + " may be set"));
    }
    for (String level : List.of(Berth.PODSET_REQUIRED_TOPOLOGY, Berth.PODSET_PREFERRED_TOPOLOGY)) {
      errors.labelKey(path.key(level), annotations.get(level));
    }
    String unconstrained = annotations.get(Berth.PODSET_UNCONSTRAINED_TOPOLOGY);
    if (unconstrained != null && !unconstrained.equals("true")) {
      errors.add(
          FieldError.invalid(
              path.key(Berth.PODSET_UNCONSTRAINED_TOPOLOGY),
              unconstrained,
              "must be \"true\" (leave it out for no topology)"));
    }
    String sliceLevel = annotations.get(Berth.PODSET_SLICE_REQUIRED_TOPOLOGY);
    String sliceSize = annotations.get(Berth.PODSET_SLICE_SIZE);
    errors.labelKey(path.key(Berth.PODSET_SLICE_REQUIRED_TOPOLOGY), sliceLevel);
    if ((sliceLevel == null) != (sliceSize == null)) {
      errors.add(
          FieldError.required(
              path.key(
                  sliceLevel == null
                      ? Berth.PODSET_SLICE_REQUIRED_TOPOLOGY
                      : Berth.PODSET_SLICE_SIZE),
              Berth.PODSET_SLICE_REQUIRED_TOPOLOGY
                  + " and "
                  + Berth.PODSET_SLICE_SIZE
                  + " go together"));
    }
    if (sliceSize != null) {
      boolean whole;
      try {
        whole = Integer.parseInt(sliceSize.trim()) >= 1;
      } catch (NumberFormatException e) {
        whole = false;
      }
      if (!whole) {
        errors.add(
            FieldError.invalid(
                path.key(Berth.PODSET_SLICE_SIZE),
                sliceSize,
                "must be a whole number of at least 1"));
      } else if (podCount != null
          && podCount > 0
          && podCount % Integer.parseInt(sliceSize.trim()) != 0) {
        // Otherwise the Workload could never be placed: its pods cannot be cut into whole slices.
        errors.add(
            FieldError.invalid(
                path.key(Berth.PODSET_SLICE_SIZE),
                sliceSize,
                "must divide the podSet's pod count (" + podCount + ")"));
      }
    }
    String group = annotations.get(Berth.PODSET_GROUP_NAME);
    if (group != null) {
      errors.dnsLabel(path.key(Berth.PODSET_GROUP_NAME), group);
      if (modes.isEmpty()) {
        errors.add(
            FieldError.required(
                path.key(Berth.PODSET_REQUIRED_TOPOLOGY),
                "a podSet group is placed by topology: set one of " + String.join(", ", MODES)));
      }
    }
    if ((sliceLevel != null || sliceSize != null) && modes.isEmpty()) {
      errors.add(
          FieldError.required(
              path.key(Berth.PODSET_REQUIRED_TOPOLOGY),
              "slices need a placement: set one of " + String.join(", ", MODES)));
    }
  }
}
