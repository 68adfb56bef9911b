package dev.berth.webhook.dra;

import dev.berth.api.v1beta1.FlavorDeviceSelector;
import dev.berth.webhook.dra.cel.DeviceSelectorCel;
import dev.berth.webhook.dra.cel.DraDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A ResourceFlavor's {@code deviceSelectors}, compiled: which of them narrow a request of a given
 * DeviceClass (those naming it, and those naming none), for the claims of the flavor's pods and for
 * the devices its capacity counts (docs/dra.md). Thread-safe.
 */
public final class FlavorDeviceSelectors {
  public static final FlavorDeviceSelectors NONE = new FlavorDeviceSelectors(List.of());

  /** One selector; {@code compiled} is empty when it does not compile (stored past the webhook). */
  private record Entry(
      String deviceClassName, String expression, Optional<DeviceSelectorCel.Selector> compiled) {
    boolean appliesTo(String deviceClass) {
      return deviceClassName == null || deviceClassName.equals(deviceClass);
    }
  }

  private final List<Entry> entries;

  private FlavorDeviceSelectors(List<Entry> entries) {
    this.entries = List.copyOf(entries);
  }

  /** The flavor's selectors ({@code spec.deviceSelectors}; null: none). */
  public static FlavorDeviceSelectors of(List<FlavorDeviceSelector> selectors) {
    if (selectors == null || selectors.isEmpty()) {
      return NONE;
    }
    List<Entry> entries = new ArrayList<>();
    for (FlavorDeviceSelector s : selectors) {
      if (s == null || s.cel == null || s.cel.expression == null) {
        continue;
      }
      Optional<DeviceSelectorCel.Selector> compiled;
      try {
        compiled = Optional.of(DeviceSelectorCel.compiled(s.cel.expression));
      } catch (IllegalArgumentException e) {
        compiled = Optional.empty();
      }
      entries.add(new Entry(s.deviceClassName, s.cel.expression, compiled));
    }
    return new FlavorDeviceSelectors(entries);
  }

  public boolean isEmpty() {
    return entries.isEmpty();
  }

  /** The expressions a request of {@code deviceClass} must meet on this flavor, in spec order. */
  public List<String> expressionsFor(String deviceClass) {
    return entries.stream().filter(e -> e.appliesTo(deviceClass)).map(Entry::expression).toList();
  }

  /**
   * Whether a request of {@code deviceClass} on this flavor may be allocated the device: every
   * selector that narrows the class selects it (one that does not compile selects nothing).
   */
  public boolean selects(String deviceClass, DraDevice device) {
    for (Entry e : entries) {
      if (e.appliesTo(deviceClass)
          && (e.compiled().isEmpty() || !e.compiled().get().selects(device))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The selectors as text, equal for equal selectors, without compiling them: tells when a flavor's
   * selectors change.
   */
  public static String key(List<FlavorDeviceSelector> selectors) {
    StringBuilder out = new StringBuilder();
    for (FlavorDeviceSelector s : selectors == null ? List.<FlavorDeviceSelector>of() : selectors) {
      if (s == null || s.cel == null || s.cel.expression == null) {
        continue;
      }
      out.append(s.deviceClassName == null ? "*" : s.deviceClassName)
          .append('\u0000')
          .append(s.cel.expression)
          .append('\u0001');
    }
    return out.toString();
  }
}
