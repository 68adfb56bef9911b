package dev.berth.webhook.dra;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The devices one pod (a pod spec, or a pod template's) holds through its {@code
 * spec.resourceClaims}, per quota resource:
 *
 * <ul>
 *   <li>{@code resourceClaimTemplateName}: each pod gets its own claim made from the template, so
 *       its devices are the pod's ({@link #perPod()});
 *   <li>{@code resourceClaimName}: one claim, shared by every pod that names it, so its devices are
 *       held once however many pods use it ({@link #shared()}, by claim name);
 *   <li>a template or claim that does not exist, or whose devices cannot be charged ({@link
 *       ClaimDevices}): a problem naming the pod's field.
 * </ul>
 *
 * @param perPod devices each pod holds through its own claims
 * @param shared devices of each shared claim, by claim name
 * @param problems what cannot be charged, each naming its field
 */
public record PodClaims(
    Map<String, Long> perPod, Map<String, Map<String, Long>> shared, List<String> problems) {
  public PodClaims {
    perPod = Map.copyOf(perPod);
    shared = Map.copyOf(shared);
    problems = List.copyOf(problems);
  }

  /** Whether the pod references no claim at all. */
  public static boolean none(JsonNode podSpec) {
    JsonNode claims = podSpec.path("resourceClaims");
    return !claims.isArray() || claims.isEmpty();
  }

  /**
   * What the pod spec at {@code specPath} ({@code spec}, {@code spec.template.spec}) holds; the
   * templates and claims are read from {@code source} in {@code namespace}.
   */
  public static PodClaims of(
      String namespace,
      JsonNode podSpec,
      String specPath,
      ClaimSource source,
      DeviceClassMappings mappings) {
    Map<String, Long> perPod = new TreeMap<>();
    Map<String, Map<String, Long>> shared = new TreeMap<>();
    List<String> problems = new ArrayList<>();
    JsonNode claims = podSpec.path("resourceClaims");
    for (int i = 0; claims.isArray() && i < claims.size(); i++) {
      JsonNode ref = claims.get(i);
      String at = specPath + ".resourceClaims[" + i + "]";
      String template = ref.path("resourceClaimTemplateName").asText("");
      String claim = ref.path("resourceClaimName").asText("");
      if (!template.isEmpty()) {
        var found = source.template(namespace, template);
        if (found.isEmpty()) {
          problems.add(
              at + ".resourceClaimTemplateName: ResourceClaimTemplate " + template + " not found");
          continue;
        }
        ClaimDevices.Count count =
            ClaimDevices.of(
                found.get().path("spec").path("spec"),
                "ResourceClaimTemplate " + template + " spec.spec",
                mappings);
        problems.addAll(prefixed(at, count.problems()));
        count.devices().forEach((resource, n) -> perPod.merge(resource, n, Long::sum));
      } else if (!claim.isEmpty()) {
        var found = source.claim(namespace, claim);
        if (found.isEmpty()) {
          problems.add(at + ".resourceClaimName: ResourceClaim " + claim + " not found");
          continue;
        }
        ClaimDevices.Count count =
            ClaimDevices.of(found.get().path("spec"), "ResourceClaim " + claim + " spec", mappings);
        problems.addAll(prefixed(at, count.problems()));
        if (!count.devices().isEmpty()) {
          shared.put(claim, count.devices());
        }
      }
    }
    return new PodClaims(perPod, shared, problems);
  }

  private static List<String> prefixed(String at, List<String> problems) {
    return problems.stream().map(p -> at + " → " + p).toList();
  }

  /** Every device the pod holds, its own and the shared claims' together. */
  public Map<String, Long> total() {
    Map<String, Long> total = new TreeMap<>(perPod);
    shared.values().forEach(d -> d.forEach((r, n) -> total.merge(r, n, Long::sum)));
    return total;
  }
}
