package dev.berth.engine.model;

/**
 * A pod (or flavor) toleration. {@code key == null} with operator Exists tolerates every taint;
 * {@code effect == null} matches every effect, as in Kubernetes.
 */
public record Toleration(String key, Operator operator, String value, TaintEffect effect) {
  /** Toleration operators. */
  public enum Operator {
    Equal,
    Exists
  }

  public Toleration {
    operator = operator == null ? Operator.Equal : operator;
    value = value == null ? "" : value;
  }

  public static Toleration exists(String key, TaintEffect effect) {
    return new Toleration(key, Operator.Exists, null, effect);
  }

  public static Toleration equal(String key, String value, TaintEffect effect) {
    return new Toleration(key, Operator.Equal, value, effect);
  }

  public boolean tolerates(Taint taint) {
    if (effect != null && effect != taint.effect()) {
      return false;
    }
    if (key == null || key.isEmpty()) {
      return operator == Operator.Exists;
    }
    if (!key.equals(taint.key())) {
      return false;
    }
    return operator == Operator.Exists || value.equals(taint.value());
  }
}
