package dev.berth.engine.model;

import java.util.Objects;

/**
 * One of a flavor's device selectors, as text: the CEL expression a DRA request of {@code
 * deviceClassName} (null: of any class) must carry to be allocated only the flavor's devices. The
 * engine never evaluates it; it only compares it with what a shared claim carries.
 */
public record DeviceSelector(String deviceClassName, String expression) {
  public DeviceSelector {
    Objects.requireNonNull(expression, "expression");
  }

  /** Whether it narrows requests of {@code deviceClass}. */
  public boolean narrows(String deviceClass) {
    return deviceClassName == null || deviceClassName.equals(deviceClass);
  }
}
