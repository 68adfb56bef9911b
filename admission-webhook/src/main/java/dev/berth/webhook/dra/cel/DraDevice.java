package dev.berth.webhook.dra.cel;

import java.util.AbstractMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * A device as a ResourceSlice publishes it, as DRA's CEL selectors see it: its driver, and its
 * attributes (a string, a boolean, an integer as {@link Long}, a version as {@link CelSemver}) and
 * capacities ({@link CelQuantity}) by qualified name ({@code domain/name}; an unqualified name is
 * in the driver's domain).
 */
public record DraDevice(
    String driver, Map<String, Object> attributes, Map<String, CelQuantity> capacity) {
  public DraDevice {
    attributes = Map.copyOf(attributes);
    capacity = Map.copyOf(capacity);
  }

  /** The {@code device} variable: {@code device.attributes["domain"].name}. */
  Map<String, Object> celValue() {
    return Map.of(
        "driver",
        driver,
        "attributes",
        byDomain(attributes),
        "capacity",
        byDomain(capacity),
        "allowMultipleAllocations",
        false);
  }

  private static <V> Map<String, Map<String, V>> byDomain(Map<String, V> qualified) {
    Map<String, Map<String, V>> out = new HashMap<>();
    qualified.forEach(
        (name, value) -> {
          int slash = name.lastIndexOf('/');
          out.computeIfAbsent(name.substring(0, Math.max(slash, 0)), d -> new HashMap<>())
              .put(name.substring(slash + 1), value);
        });
    return new Domains<>(out);
  }

  /**
   * Attributes or capacities by domain, where a domain the device has nothing in is an empty map,
   * as in Kubernetes: {@code device.attributes["other.example.com"].model} fails on the missing
   * name, not the domain.
   */
  private static final class Domains<V> extends AbstractMap<String, Map<String, V>> {
    private final Map<String, Map<String, V>> known;

    Domains(Map<String, Map<String, V>> known) {
      this.known = known;
    }

    @Override
    public Set<Entry<String, Map<String, V>>> entrySet() {
      return known.entrySet();
    }

    @Override
    public boolean containsKey(Object key) {
      return key instanceof String;
    }

    @Override
    public Map<String, V> get(Object key) {
      return known.getOrDefault(key, Map.of());
    }
  }
}
