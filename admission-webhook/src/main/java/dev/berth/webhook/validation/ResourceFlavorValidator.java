package dev.berth.webhook.validation;

import dev.berth.api.v1beta1.FlavorDeviceSelector;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.ResourceFlavorSpec;
import dev.berth.webhook.dra.cel.DeviceSelectorCel;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A ResourceFlavor: node labels, taints and tolerations as Kubernetes checks them on nodes/pods;
 * device selectors as Kubernetes checks a claim's (the CEL expression compiles in DRA's
 * environment, {@link DeviceSelectorCel}).
 */
public final class ResourceFlavorValidator {
  static final int MAX_ITEMS = 8;

  /** As Kubernetes limits a device selector's CEL expression. */
  static final int MAX_EXPRESSION = 10240;

  static final List<String> EFFECTS = List.of("NoSchedule", "PreferNoSchedule", "NoExecute");
  private static final List<String> OPERATORS = List.of("Equal", "Exists");

  private ResourceFlavorValidator() {}

  public static List<FieldError> validate(ResourceFlavor rf) {
    Errors errors = new Errors();
    ResourceFlavorSpec spec = rf.getSpec();
    if (spec == null) {
      return errors.toList();
    }
    FieldPath sp = FieldPath.root("spec");
    checkNodeLabels(spec.nodeLabels, sp.child("nodeLabels"), errors);
    checkTaints(spec.nodeTaints, sp.child("nodeTaints"), errors);
    checkTolerations(spec.tolerations, sp.child("tolerations"), errors);
    errors.dnsSubdomain(sp.child("topologyName"), spec.topologyName);
    checkDeviceSelectors(spec.deviceSelectors, sp.child("deviceSelectors"), errors);
    if (spec.topologyName != null && (spec.nodeLabels == null || spec.nodeLabels.isEmpty())) {
      errors.add(
          FieldError.required(
              sp.child("nodeLabels"),
              "topologyName requires nodeLabels to tell the flavor's nodes apart"));
    }
    return errors.toList();
  }

  public static List<FieldError> validateUpdate(ResourceFlavor old, ResourceFlavor rf) {
    Errors errors = new Errors();
    errors.addAll(validate(rf));
    String before = old.getSpec() == null ? null : old.getSpec().topologyName;
    String after = rf.getSpec() == null ? null : rf.getSpec().topologyName;
    if (!Objects.equals(before, after)) {
      errors.add(
          FieldError.invalid(
              FieldPath.root("spec").child("topologyName"),
              after,
              "field is immutable: topologyName cannot change once the flavor is created"));
    }
    return errors.toList();
  }

  private static void checkNodeLabels(Map<String, String> labels, FieldPath path, Errors errors) {
    if (labels == null) {
      return;
    }
    if (labels.size() > MAX_ITEMS) {
      errors.add(FieldError.tooMany(path, labels.size(), MAX_ITEMS));
    }
    for (Map.Entry<String, String> e : labels.entrySet()) {
      errors.labelKey(path, e.getKey());
      errors.labelValue(path.key(e.getKey()), e.getValue());
    }
  }

  private static void checkDeviceSelectors(
      List<FlavorDeviceSelector> selectors, FieldPath path, Errors errors) {
    if (selectors == null) {
      return;
    }
    if (selectors.size() > MAX_ITEMS) {
      errors.add(FieldError.tooMany(path, selectors.size(), MAX_ITEMS));
    }
    for (int i = 0; i < selectors.size(); i++) {
      FlavorDeviceSelector s = selectors.get(i);
      FieldPath sp = path.index(i);
      if (s == null) {
        errors.add(FieldError.required(sp, "a device selector must not be null"));
        continue;
      }
      errors.dnsSubdomain(sp.child("deviceClassName"), s.deviceClassName);
      FieldPath expression = sp.child("cel").child("expression");
      if (s.cel == null || s.cel.expression == null || s.cel.expression.isBlank()) {
        errors.add(FieldError.required(expression, "a CEL expression over `device` is required"));
        continue;
      }
      if (s.cel.expression.length() > MAX_EXPRESSION) {
        errors.add(
            FieldError.invalid(
                expression,
                s.cel.expression.substring(0, 40) + "...",
                "must be at most " + MAX_EXPRESSION + " characters"));
        continue;
      }
      DeviceSelectorCel.problem(s.cel.expression)
          .ifPresent(
              problem ->
                  errors.add(
                      FieldError.invalid(
                          expression,
                          s.cel.expression,
                          "compilation failed: "
                              + problem
                              + " (a DRA device selector: device.driver,"
                              + " device.attributes[\"domain\"].name,"
                              + " device.capacity[\"domain\"].name, and quantities compared as"
                              + " device.capacity[\"gpu.nvidia.com\"].memory.compareTo("
                              + "quantity(\"80Gi\")) >= 0; docs/dra.md)")));
    }
  }

  private static void checkTaints(List<Taint> taints, FieldPath path, Errors errors) {
    if (taints == null) {
      return;
    }
    if (taints.size() > MAX_ITEMS) {
      errors.add(FieldError.tooMany(path, taints.size(), MAX_ITEMS));
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < taints.size(); i++) {
      Taint t = taints.get(i);
      FieldPath tp = path.index(i);
      if (t == null) {
        errors.add(FieldError.required(tp, "a taint must not be null"));
        continue;
      }
      if (t.getKey() == null || t.getKey().isEmpty()) {
        errors.add(FieldError.required(tp.child("key"), "a taint key is required"));
      } else {
        errors.labelKey(tp.child("key"), t.getKey());
      }
      errors.labelValue(tp.child("value"), t.getValue());
      if (t.getEffect() == null || t.getEffect().isEmpty()) {
        errors.add(FieldError.required(tp.child("effect"), "a taint effect is required"));
      } else if (!EFFECTS.contains(t.getEffect())) {
        errors.add(FieldError.notSupported(tp.child("effect"), t.getEffect(), EFFECTS));
      } else if (!seen.add(t.getKey() + "\u0000" + t.getEffect())) {
        errors.add(FieldError.duplicate(tp, t.getKey() + ":" + t.getEffect()));
      }
    }
  }

  private static void checkTolerations(
      List<Toleration> tolerations, FieldPath path, Errors errors) {
    if (tolerations == null) {
      return;
    }
    if (tolerations.size() > MAX_ITEMS) {
      errors.add(FieldError.tooMany(path, tolerations.size(), MAX_ITEMS));
    }
    for (int i = 0; i < tolerations.size(); i++) {
      Toleration t = tolerations.get(i);
      FieldPath tp = path.index(i);
      if (t == null) {
        errors.add(FieldError.required(tp, "a toleration must not be null"));
        continue;
      }
      boolean hasKey = t.getKey() != null && !t.getKey().isEmpty();
      if (hasKey) {
        errors.labelKey(tp.child("key"), t.getKey());
      }
      String op = t.getOperator() == null || t.getOperator().isEmpty() ? "Equal" : t.getOperator();
      if (!OPERATORS.contains(op)) {
        errors.add(FieldError.notSupported(tp.child("operator"), op, OPERATORS));
      } else if (op.equals("Exists") && t.getValue() != null && !t.getValue().isEmpty()) {
        errors.add(
            FieldError.invalid(
                tp.child("value"),
                t.getValue(),
                "value must be empty when `operator` is 'Exists'"));
      } else if (op.equals("Equal")) {
        if (!hasKey) {
          errors.add(
              FieldError.invalid(
                  tp.child("operator"),
                  op,
                  "operator must be Exists when `key` is empty, which means \"match all values and"
                      + " all keys\""));
        }
        errors.labelValue(tp.child("value"), t.getValue());
      }
      String effect = t.getEffect();
      if (effect != null && !effect.isEmpty() && !EFFECTS.contains(effect)) {
        errors.add(FieldError.notSupported(tp.child("effect"), effect, EFFECTS));
      }
      if (t.getTolerationSeconds() != null && !"NoExecute".equals(effect)) {
        errors.add(
            FieldError.invalid(
                tp.child("effect"),
                effect,
                "effect must be 'NoExecute' when `tolerationSeconds` is set"));
      }
    }
  }
}
