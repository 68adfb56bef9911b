package dev.berth.engine.model;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One requirement of a label selector or node-selector term. Gt and Lt exist only in node affinity
 * and compare integers.
 */
public record LabelSelectorRequirement(String key, Operator operator, List<String> values) {
  /** Selector operators, as in Kubernetes. */
  public enum Operator {
    In,
    NotIn,
    Exists,
    DoesNotExist,
    Gt,
    Lt
  }

  public LabelSelectorRequirement {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(operator, "operator");
    values = values == null ? List.of() : List.copyOf(values);
  }

  /** Whether a set of labels satisfies this requirement. */
  public boolean matches(Map<String, String> labels) {
    String actual = labels.get(key);
    return matchesValue(actual);
  }

  /** Whether a label value ({@code null} = key absent) satisfies this requirement. */
  public boolean matchesValue(String actual) {
    switch (operator) {
      case In:
        return actual != null && values.contains(actual);
      case NotIn:
        return actual == null || !values.contains(actual);
      case Exists:
        return actual != null;
      case DoesNotExist:
        return actual == null;
      case Gt:
      case Lt:
        if (actual == null || values.size() != 1) {
          return false;
        }
        try {
          long have = Long.parseLong(actual);
          long bound = Long.parseLong(values.get(0));
          return operator == Operator.Gt ? have > bound : have < bound;
        } catch (NumberFormatException e) {
          return false;
        }
      default:
        throw new IllegalStateException(operator.toString());
    }
  }
}
