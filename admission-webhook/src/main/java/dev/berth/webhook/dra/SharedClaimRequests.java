package dev.berth.webhook.dra;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The requests of the shared ResourceClaims a Workload is charged for, with the selectors each
 * carries, as the operator read them when it created the Workload (annotation {@value #ANNOTATION},
 * {@code {"<podSet>": [{"claim", "request", "deviceClass", "resource", "selectors"}]}}, kept as
 * created by the webhook, beside the shared devices' charge). A shared claim is the team's and its
 * spec cannot change, so Berth cannot narrow it to a flavor: its own selectors alone decide which
 * devices kube-scheduler allocates, and a flavor whose device selectors it does not carry does not
 * fit the pod set it is charged to (docs/dra.md).
 */
public final class SharedClaimRequests {
  public static final String ANNOTATION = "berth.dev/shared-claim-requests";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, List<Request>>> TYPE = new TypeReference<>() {};

  private SharedClaimRequests() {}

  /**
   * One request, or {@code firstAvailable} subrequest (named {@code request/subrequest}, as
   * Kubernetes names it), of a DeviceClass mapped to {@code resource}.
   */
  public record Request(
      String claim, String request, String deviceClass, String resource, List<String> selectors) {
    public Request {
      selectors = selectors == null ? List.of() : List.copyOf(selectors);
    }

    /** The first of the flavor's selectors narrowing its class that it does not carry. */
    public Optional<String> lacking(FlavorDeviceSelectors flavor) {
      return flavor.expressionsFor(deviceClass).stream()
          .filter(e -> !selectors.contains(e))
          .findFirst();
    }
  }

  /** The requests of the claim {@code claim} (its {@code spec}) whose DeviceClass is mapped. */
  public static List<Request> of(String claim, JsonNode claimSpec, DeviceClassMappings mappings) {
    List<Request> out = new ArrayList<>();
    for (JsonNode request : claimSpec.path("devices").path("requests")) {
      String name = request.path("name").asText("");
      add(out, claim, name, request.path("exactly"), mappings);
      for (JsonNode sub : request.path("firstAvailable")) {
        add(out, claim, name + "/" + sub.path("name").asText(""), sub, mappings);
      }
    }
    return out;
  }

  private static void add(
      List<Request> out,
      String claim,
      String name,
      JsonNode request,
      DeviceClassMappings mappings) {
    String deviceClass = request.path("deviceClassName").asText("");
    var resource = mappings.resourceFor(deviceClass);
    if (resource.isEmpty()) {
      return;
    }
    List<String> selectors = new ArrayList<>();
    for (JsonNode s : request.path("selectors")) {
      if (s.path("cel").path("expression").isTextual()) {
        selectors.add(s.path("cel").path("expression").asText());
      }
    }
    out.add(new Request(claim, name, deviceClass, resource.get(), selectors));
  }

  /** The annotation's value, or null when no pod set is charged a shared claim's request. */
  public static String write(Map<String, List<Request>> byPodSet) {
    Map<String, List<Request>> held = new TreeMap<>();
    byPodSet.forEach(
        (podSet, requests) -> {
          if (!requests.isEmpty()) {
            held.put(podSet, requests);
          }
        });
    try {
      return held.isEmpty() ? null : JSON.writeValueAsString(held);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Per pod set, the requests of its shared claims; empty when absent or unreadable. */
  public static Map<String, List<Request>> read(String annotation) {
    if (annotation == null) {
      return Map.of();
    }
    try {
      return JSON.readValue(annotation, TYPE);
    } catch (JsonProcessingException e) {
      // Only the operator writes it (the webhook keeps it as created): unreadable means absent.
      return Map.of();
    }
  }
}
