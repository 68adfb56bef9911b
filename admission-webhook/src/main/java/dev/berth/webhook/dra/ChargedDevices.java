package dev.berth.webhook.dra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a Workload was charged for the devices its pods hold through ResourceClaims, as the operator
 * wrote it when it created the Workload (annotations {@value #PER_POD} and {@value #SHARED}, {@code
 * {"<podSet>": {"<resource>": <devices>}}}, kept as created by the webhook): the devices each pod
 * of a pod set holds through claims made from templates, and the devices of the claims its pods
 * share, charged once. Unreadable reads as nothing charged, so a pod holding devices is refused.
 *
 * @param perPod per pod set, the devices each of its pods holds
 * @param shared per pod set, the shared claims' devices charged to it once
 */
public record ChargedDevices(
    Map<String, Map<String, Long>> perPod, Map<String, Map<String, Long>> shared) {
  public static final String PER_POD = "berth.dev/device-requests";
  public static final String SHARED = "berth.dev/shared-device-requests";

  private static final ObjectMapper JSON = new ObjectMapper();

  public ChargedDevices {
    perPod = Map.copyOf(perPod);
    shared = Map.copyOf(shared);
  }

  /** What the stored Workload {@code workload} was charged. */
  public static ChargedDevices of(JsonNode workload) {
    JsonNode annotations = workload.path("metadata").path("annotations");
    return new ChargedDevices(read(annotations.path(PER_POD)), read(annotations.path(SHARED)));
  }

  /** The devices each pod of {@code podSet} may hold through claims of its own. */
  public Map<String, Long> perPod(String podSet) {
    return perPod.getOrDefault(podSet, Map.of());
  }

  /** The devices of every shared claim the Workload was charged, whichever pod set carries them. */
  public Map<String, Long> sharedTotal() {
    Map<String, Long> total = new TreeMap<>();
    shared.values().forEach(d -> d.forEach((r, n) -> total.merge(r, n, Long::sum)));
    return total;
  }

  private static Map<String, Map<String, Long>> read(JsonNode text) {
    Map<String, Map<String, Long>> out = new TreeMap<>();
    if (!text.isTextual()) {
      return out;
    }
    try {
      JSON.readTree(text.asText())
          .fields()
          .forEachRemaining(
              podSet -> {
                Map<String, Long> devices = new TreeMap<>();
                podSet
                    .getValue()
                    .fields()
                    .forEachRemaining(d -> devices.put(d.getKey(), d.getValue().asLong()));
                out.put(podSet.getKey(), devices);
              });
    } catch (java.io.IOException e) {
      out.clear();
    }
    return out;
  }
}
