package dev.berth.webhook.validation;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.List;
import java.util.Map;

/** A metav1.LabelSelector as the API server checks one: keys, values and operators. */
final class LabelSelectorValidator {
  private static final List<String> OPERATORS = List.of("In", "NotIn", "Exists", "DoesNotExist");

  private LabelSelectorValidator() {}

  static void validate(LabelSelector selector, FieldPath path, Errors errors) {
    if (selector == null) {
      return;
    }
    Map<String, String> labels = selector.getMatchLabels();
    if (labels != null) {
      for (Map.Entry<String, String> e : labels.entrySet()) {
        errors.labelKey(path.child("matchLabels"), e.getKey());
        errors.labelValue(path.child("matchLabels").key(e.getKey()), e.getValue());
      }
    }
    List<LabelSelectorRequirement> expressions = selector.getMatchExpressions();
    if (expressions == null) {
      return;
    }
    for (int i = 0; i < expressions.size(); i++) {
      LabelSelectorRequirement req = expressions.get(i);
      FieldPath ep = path.child("matchExpressions").index(i);
      if (req == null) {
        errors.add(FieldError.required(ep, "a requirement must not be null"));
        continue;
      }
      if (req.getKey() == null || req.getKey().isEmpty()) {
        errors.add(FieldError.required(ep.child("key"), "a label key is required"));
      } else {
        errors.labelKey(ep.child("key"), req.getKey());
      }
      String op = req.getOperator();
      List<String> values = req.getValues() == null ? List.of() : req.getValues();
      if (op == null || op.isEmpty()) {
        errors.add(FieldError.required(ep.child("operator"), "an operator is required"));
      } else if (!OPERATORS.contains(op)) {
        errors.add(FieldError.notSupported(ep.child("operator"), op, OPERATORS));
      } else if ((op.equals("In") || op.equals("NotIn")) && values.isEmpty()) {
        errors.add(
            FieldError.required(
                ep.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"));
      } else if ((op.equals("Exists") || op.equals("DoesNotExist")) && !values.isEmpty()) {
        errors.add(
            FieldError.forbidden(
                ep.child("values"),
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
      for (int v = 0; v < values.size(); v++) {
        errors.labelValue(ep.child("values").index(v), values.get(v));
      }
    }
  }
}
