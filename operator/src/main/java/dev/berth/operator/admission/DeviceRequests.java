package dev.berth.operator.admission;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.berth.api.v1beta1.Workload;
import java.util.Map;
import java.util.TreeMap;

/**
 * The devices each pod of a Workload's pod sets holds through ResourceClaims (Dynamic Resource
 * Allocation), per quota resource, as the operator read them from the ResourceClaimTemplates and
 * ResourceClaims when it created the Workload: its annotation {@value #ANNOTATION}, {@code
 * {"<podSet>": {"<resource>": <devices per pod>}}}. Read once then, because the pod template names
 * a template and not its devices; the charge stays what the Workload was admitted for.
 */
public final class DeviceRequests {
  /** Kept as created by the webhook (DeviceRequestsAnnotation). */
  public static final String ANNOTATION = "berth.dev/device-requests";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, Map<String, Long>>> TYPE =
      new TypeReference<>() {};

  private DeviceRequests() {}

  /** Per pod set, the devices each of its pods holds; empty when the Workload's pods hold none. */
  public static Map<String, Map<String, Long>> of(Workload wl) {
    Map<String, String> annotations = wl.getMetadata().getAnnotations();
    String text = annotations == null ? null : annotations.get(ANNOTATION);
    if (text == null) {
      return Map.of();
    }
    try {
      return JSON.readValue(text, TYPE);
    } catch (JsonProcessingException e) {
      // Only the operator writes it (the webhook keeps it as created): unreadable means absent.
      return Map.of();
    }
  }

  /** The devices of one pod set's pods, added to {@code requests}. */
  public static void addTo(Workload wl, String podSet, Map<String, Long> requests) {
    Map<String, Long> devices = of(wl).get(podSet);
    if (devices != null) {
      devices.forEach((resource, n) -> requests.merge(resource, n, Long::sum));
    }
  }

  /** Writes {@code devices} (per pod set) on the Workload; nothing when no pod holds a device. */
  public static void write(Workload wl, Map<String, Map<String, Long>> devices) {
    Map<String, Map<String, Long>> held = new TreeMap<>();
    devices.forEach(
        (podSet, d) -> {
          if (!d.isEmpty()) {
            held.put(podSet, new TreeMap<>(d));
          }
        });
    if (held.isEmpty()) {
      return;
    }
    try {
      // The adapter's map may be immutable.
      Map<String, String> annotations = new TreeMap<>();
      if (wl.getMetadata().getAnnotations() != null) {
        annotations.putAll(wl.getMetadata().getAnnotations());
      }
      annotations.put(ANNOTATION, JSON.writeValueAsString(held));
      wl.getMetadata().setAnnotations(annotations);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
