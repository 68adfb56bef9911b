package dev.berth.webhook.dra;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The devices one ResourceClaimSpec (a claim's {@code spec}, a template's {@code spec.spec}) asks
 * for, per quota resource, as Kubernetes will allocate them (resource.k8s.io/v1):
 *
 * <ul>
 *   <li>{@code exactly} with {@code allocationMode: ExactCount} (the default): {@code count}
 *       devices, 1 when unset;
 *   <li>{@code exactly} with {@code allocationMode: All}: every matching device of a node or pool,
 *       a number known only once the scheduler allocates, so there is nothing to hold against quota
 *       before admission: refused;
 *   <li>{@code firstAvailable}: the scheduler allocates one of the subrequests, which Berth cannot
 *       know before: each resource is charged the largest count among the subrequests of classes
 *       mapped to it (never less than what is allocated); a subrequest with {@code All} is refused;
 *   <li>a request of a DeviceClass no mapping names: refused (it would run uncharged).
 * </ul>
 *
 * A refusal is a problem naming the field ({@code spec.devices.requests[0].exactly.allocationMode:
 * ...}), prefixed with {@code path}.
 */
public final class ClaimDevices {
  private ClaimDevices() {}

  /** Devices per quota resource, and what could not be charged. */
  public record Count(Map<String, Long> devices, List<String> problems) {
    public Count {
      devices = Map.copyOf(devices);
      problems = List.copyOf(problems);
    }
  }

  /** What the claim spec at {@code path} asks for. */
  public static Count of(JsonNode claimSpec, String path, DeviceClassMappings mappings) {
    Map<String, Long> devices = new TreeMap<>();
    List<String> problems = new ArrayList<>();
    JsonNode requests = claimSpec.path("devices").path("requests");
    for (int i = 0; requests.isArray() && i < requests.size(); i++) {
      JsonNode request = requests.get(i);
      String at = path + ".devices.requests[" + i + "]";
      if (request.has("exactly")) {
        add(request.get("exactly"), at + ".exactly", mappings, devices, problems, Long::sum);
      }
      JsonNode first = request.path("firstAvailable");
      Map<String, Long> largest = new TreeMap<>();
      for (int j = 0; first.isArray() && j < first.size(); j++) {
        add(
            first.get(j),
            at + ".firstAvailable[" + j + "]",
            mappings,
            largest,
            problems,
            Math::max);
      }
      largest.forEach((resource, n) -> devices.merge(resource, n, Long::sum));
    }
    return new Count(devices, problems);
  }

  private static void add(
      JsonNode request,
      String at,
      DeviceClassMappings mappings,
      Map<String, Long> devices,
      List<String> problems,
      java.util.function.BinaryOperator<Long> merge) {
    String deviceClass = request.path("deviceClassName").asText("");
    var resource = mappings.resourceFor(deviceClass);
    if (resource.isEmpty()) {
      problems.add(
          at
              + ".deviceClassName: DeviceClass \""
              + deviceClass
              + "\" is mapped to no quota resource (resources.deviceClassMappings of Berth's"
              + " configuration), so its devices cannot be charged to a queue");
      return;
    }
    if ("All".equals(request.path("allocationMode").asText())) {
      problems.add(
          at
              + ".allocationMode: All allocates every matching device, a number known only at"
              + " allocation, so Berth cannot charge it to quota before admission; ask for a count"
              + " (allocationMode: ExactCount)");
      return;
    }
    long count = request.path("count").asLong(1);
    devices.merge(resource.get(), count, merge);
  }
}
