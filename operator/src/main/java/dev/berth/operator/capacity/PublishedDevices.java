package dev.berth.operator.capacity;

import dev.berth.webhook.dra.DeviceClassMappings;
import dev.berth.webhook.dra.FlavorDeviceSelectors;
import dev.berth.webhook.dra.cel.CelQuantity;
import dev.berth.webhook.dra.cel.CelSemver;
import dev.berth.webhook.dra.cel.DraDevice;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DRA devices drivers publish in ResourceSlices, counted per node and per quota resource of the
 * configuration's DeviceClass mappings (docs/dra.md): a device counts for a resource when a
 * DeviceClass mapped to it selects the device ({@link DeviceClassSelectors}), once per resource
 * however many of its classes do. Only a pool's newest generation counts (a driver republishing a
 * pool leaves slices of the older one until it deletes them), and only slices of one node ({@code
 * spec.nodeName}): devices reachable from several nodes are not a node's capacity. Loop thread
 * only.
 */
public final class PublishedDevices {
  private static final Logger log = LoggerFactory.getLogger(PublishedDevices.class);

  private final DeviceClassMappings mappings;
  private final Map<String, DeviceClassSelectors> classes = new HashMap<>();
  private final Map<String, Slice> slices = new HashMap<>();

  private record Slice(
      String node, String driver, String pool, long generation, List<DraDevice> devices) {}

  public PublishedDevices(DeviceClassMappings mappings) {
    this.mappings = mappings;
  }

  public void slice(ResourceSlice slice) {
    var spec = slice.getSpec();
    if (spec == null) {
      return;
    }
    List<DraDevice> devices = new ArrayList<>();
    if (spec.getDevices() != null) {
      for (var device : spec.getDevices()) {
        Map<String, Object> celAttributes = new HashMap<>();
        Map<String, CelQuantity> capacity = new HashMap<>();
        if (device.getAttributes() != null) {
          device
              .getAttributes()
              .forEach(
                  (name, a) -> {
                    Object value =
                        a.getString() != null
                            ? a.getString()
                            : a.getBool() != null
                                ? a.getBool()
                                : a.getInt() != null ? a.getInt() : a.getVersion();
                    if (value != null) {
                      // An unqualified attribute is in the driver's own domain.
                      String qualified = qualified(spec.getDriver(), name);
                      celAttributes.put(
                          qualified,
                          a.getVersion() != null
                              ? CelSemver.parse(a.getVersion())
                                  .map(Object.class::cast)
                                  .orElse(value)
                              : value);
                    }
                  });
        }
        if (device.getCapacity() != null) {
          device
              .getCapacity()
              .forEach(
                  (name, c) -> {
                    if (c != null && c.getValue() != null) {
                      CelQuantity.parse(c.getValue().toString())
                          .ifPresent(q -> capacity.put(qualified(spec.getDriver(), name), q));
                    }
                  });
        }
        devices.add(new DraDevice(spec.getDriver(), celAttributes, capacity));
      }
    }
    var pool = spec.getPool();
    slices.put(
        slice.getMetadata().getName(),
        new Slice(
            spec.getNodeName(),
            spec.getDriver(),
            pool == null ? "" : pool.getName(),
            pool == null || pool.getGeneration() == null ? 0 : pool.getGeneration(),
            devices));
  }

  public void sliceDeleted(String name) {
    slices.remove(name);
  }

  public void deviceClass(DeviceClass deviceClass) {
    String name = deviceClass.getMetadata().getName();
    if (mappings.resourceFor(name).isEmpty()) {
      return;
    }
    try {
      classes.put(name, DeviceClassSelectors.of(deviceClass));
    } catch (IllegalArgumentException e) {
      log.warn(
          "DeviceClass {} is mapped to {} but {}: its devices do not count in flavors' capacity",
          name,
          mappings.resourceFor(name).get(),
          e.getMessage());
      classes.remove(name);
    }
  }

  public void deviceClassDeleted(String name) {
    classes.remove(name);
  }

  /** Per node, the devices its slices publish per quota resource. */
  public Map<String, Map<String, Long>> byNode() {
    return byNode(FlavorDeviceSelectors.NONE);
  }

  /**
   * Per node, the devices its slices publish per quota resource that a flavor with these device
   * selectors may be allocated: a device counts for a resource when a DeviceClass mapped to it
   * selects the device, and so do the flavor's selectors that narrow that class.
   */
  public Map<String, Map<String, Long>> byNode(FlavorDeviceSelectors flavor) {
    Map<String, Long> newest = new HashMap<>();
    slices
        .values()
        .forEach(s -> newest.merge(s.driver() + "/" + s.pool(), s.generation(), Math::max));
    Map<String, Map<String, Long>> out = new TreeMap<>();
    for (Slice s : slices.values()) {
      if (s.node() == null || s.generation() != newest.get(s.driver() + "/" + s.pool())) {
        continue;
      }
      Map<String, Long> counts = out.computeIfAbsent(s.node(), n -> new TreeMap<>());
      for (DraDevice device : s.devices()) {
        Set<String> resources = new TreeSet<>();
        classes.forEach(
            (name, selectors) -> {
              if (selectors.selects(device) && flavor.selects(name, device)) {
                resources.add(mappings.resourceFor(name).get());
              }
            });
        resources.forEach(r -> counts.merge(r, 1L, Long::sum));
      }
    }
    out.values().removeIf(Map::isEmpty);
    return out;
  }

  private static String qualified(String driver, String name) {
    return name.contains("/") ? name : driver + "/" + name;
  }
}
