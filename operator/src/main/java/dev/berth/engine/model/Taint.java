package dev.berth.engine.model;

import java.util.Objects;

/** A node taint carried by every node of a ResourceFlavor. */
public record Taint(String key, String value, TaintEffect effect) {
  public Taint {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(effect, "effect");
    value = value == null ? "" : value;
  }

  @Override
  public String toString() {
    return key + (value.isEmpty() ? "" : "=" + value) + ":" + effect;
  }
}
