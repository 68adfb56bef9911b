package dev.berth.webhook.dra;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Which quota resource each DeviceClass's devices are charged to (the configuration's {@code
 * resources.deviceClassMappings}; several classes may share one resource). A DeviceClass not named
 * here has no quota resource, so Berth refuses claims of it in a namespace it manages instead of
 * letting them run uncharged (docs/dra.md).
 */
public final class DeviceClassMappings {
  /** No class mapped: every claim in a managed namespace is refused. */
  public static final DeviceClassMappings NONE = new DeviceClassMappings(Map.of());

  private final Map<String, String> resourceByClass;

  /** {@code resourceByClass}: DeviceClass name → quota resource name. */
  public DeviceClassMappings(Map<String, String> resourceByClass) {
    this.resourceByClass = Map.copyOf(resourceByClass);
  }

  /** The quota resource the class's devices are charged to, or empty when it is not mapped. */
  public Optional<String> resourceFor(String deviceClass) {
    return Optional.ofNullable(resourceByClass.get(deviceClass));
  }

  /** Whether no class is mapped. */
  public boolean isEmpty() {
    return resourceByClass.isEmpty();
  }

  @Override
  public String toString() {
    return new TreeMap<>(resourceByClass).toString();
  }
}
