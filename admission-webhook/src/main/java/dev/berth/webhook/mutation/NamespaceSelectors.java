package dev.berth.webhook.mutation;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.List;
import java.util.Map;

/**
 * A ClusterQueue's namespaceSelector applied to a namespace's labels, as Kueue reads it: absent
 * selects no namespace, {@code {}} selects all. A selector with an unknown operator selects nothing
 * (the webhook refuses such a ClusterQueue, and the operator marks it inactive). The pod rule
 * applies a Job's selector to a pod's labels the same way.
 */
public final class NamespaceSelectors {
  private NamespaceSelectors() {}

  public static boolean selects(LabelSelector selector, Map<String, String> labels) {
    if (selector == null) {
      return false;
    }
    Map<String, String> matchLabels = selector.getMatchLabels();
    if (matchLabels != null) {
      for (Map.Entry<String, String> e : matchLabels.entrySet()) {
        if (!e.getValue().equals(labels.get(e.getKey()))) {
          return false;
        }
      }
    }
    List<LabelSelectorRequirement> expressions = selector.getMatchExpressions();
    if (expressions != null) {
      for (LabelSelectorRequirement requirement : expressions) {
        if (!satisfies(requirement, labels)) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean satisfies(
      LabelSelectorRequirement requirement, Map<String, String> labels) {
    String value = labels.get(requirement.getKey());
    List<String> values = requirement.getValues() == null ? List.of() : requirement.getValues();
    return switch (String.valueOf(requirement.getOperator())) {
      case "In" -> value != null && values.contains(value);
      case "NotIn" -> value == null || !values.contains(value);
      case "Exists" -> value != null;
      case "DoesNotExist" -> value == null;
      default -> false;
    };
  }
}
