package dev.berth.operator.admission;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.berth.api.v1beta1.Workload;
import java.util.Map;
import java.util.TreeMap;

/**
 * The devices a Workload's pod sets hold through ResourceClaims (Dynamic Resource Allocation), per
 * quota resource, as the operator read them from the ResourceClaimTemplates and ResourceClaims when
 * it created the Workload, in two annotations of the form {@code {"<podSet>": {"<resource>":
 * <devices>}}}:
 *
 * <ul>
 *   <li>{@value #ANNOTATION}: the devices each pod holds (its claims made from templates), charged
 *       per pod;
 *   <li>{@value #SHARED_ANNOTATION}: the devices of the shared ResourceClaims the pod set's pods
 *       name, charged once for the pod set however many pods it has (docs/dra.md).
 * </ul>
 *
 * Read once then, because the pod template names a template or claim and not its devices; the
 * charge stays what the Workload was admitted for.
 */
public final class DeviceRequests {
  /** Kept as created by the webhook (DeviceRequestsAnnotation). */
  public static final String ANNOTATION = "berth.dev/device-requests";

  /** Kept as created by the webhook (DeviceRequestsAnnotation). */
  public static final String SHARED_ANNOTATION = "berth.dev/shared-device-requests";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, Map<String, Long>>> TYPE =
      new TypeReference<>() {};

  private DeviceRequests() {}

  /** Per pod set, the devices each of its pods holds; empty when the Workload's pods hold none. */
  public static Map<String, Map<String, Long>> of(Workload wl) {
    return read(wl, ANNOTATION);
  }

  /** Per pod set, the devices of the claims its pods share, held once; empty when none. */
  public static Map<String, Map<String, Long>> shared(Workload wl) {
    return read(wl, SHARED_ANNOTATION);
  }

  private static Map<String, Map<String, Long>> read(Workload wl, String key) {
    Map<String, String> annotations = wl.getMetadata().getAnnotations();
    String text = annotations == null ? null : annotations.get(key);
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

  /**
   * Writes {@code perPod} and {@code shared} (per pod set) on the Workload, each only when some pod
   * set holds a device of that kind.
   */
  public static void write(
      Workload wl, Map<String, Map<String, Long>> perPod, Map<String, Map<String, Long>> shared) {
    write(wl, ANNOTATION, perPod);
    write(wl, SHARED_ANNOTATION, shared);
  }

  private static void write(Workload wl, String key, Map<String, Map<String, Long>> devices) {
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
      annotations.put(key, JSON.writeValueAsString(held));
      wl.getMetadata().setAnnotations(annotations);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
