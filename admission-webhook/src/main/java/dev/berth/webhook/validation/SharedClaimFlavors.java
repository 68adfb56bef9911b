package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.webhook.dra.SharedClaimRequests;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The pod queue rule's check that a pod's shared ResourceClaims keep to the flavors its Workload
 * was admitted on (docs/dra.md): each request of a mapped DeviceClass must carry the device
 * selectors of the flavor its resource was assigned in the pod set the claim is charged to, or
 * kube-scheduler could allocate it devices outside that flavor. Berth admitted the Workload only
 * so; the claim is read again here, as it is now, so one deleted and made again without them since
 * is refused.
 */
final class SharedClaimFlavors {
  private SharedClaimFlavors() {}

  /** Why a claim of {@code claims} could get devices outside its flavor, or null. */
  static String problem(String namespace, Set<String> claims, JsonNode workload, QueueScope scope) {
    if (claims.isEmpty()) {
      return null;
    }
    Map<String, Map<String, String>> flavors = new HashMap<>();
    for (JsonNode a : workload.at("/status/admission/podSetAssignments")) {
      Map<String, String> byResource = new HashMap<>();
      a.path("flavors")
          .fields()
          .forEachRemaining(e -> byResource.put(e.getKey(), e.getValue().asText()));
      flavors.put(a.path("name").asText(), byResource);
    }
    if (flavors.values().stream()
        .flatMap(f -> f.values().stream())
        .allMatch(f -> scope.deviceSelectors(f).isEmpty())) {
      return null; // nothing to keep to: the claims are not read again
    }
    Map<String, List<SharedClaimRequests.Request>> recorded =
        SharedClaimRequests.read(
            workload
                .path("metadata")
                .path("annotations")
                .path(SharedClaimRequests.ANNOTATION)
                .asText(null));
    for (String claim : claims) {
      Optional<JsonNode> stored = scope.claim(namespace, claim);
      if (stored.isEmpty()) {
        continue; // refused as not found by the charge
      }
      // The pod set it is charged to; when none says so, every pod set's flavors hold it.
      List<String> podSets =
          recorded.entrySet().stream()
              .filter(e -> e.getValue().stream().anyMatch(r -> claim.equals(r.claim())))
              .map(Map.Entry::getKey)
              .toList();
      Iterable<String> holding = podSets.isEmpty() ? flavors.keySet() : podSets;
      for (var request :
          SharedClaimRequests.of(claim, stored.get().path("spec"), scope.deviceClasses())) {
        for (String podSet : holding) {
          String flavor = flavors.getOrDefault(podSet, Map.of()).get(request.resource());
          if (flavor == null) {
            continue;
          }
          Optional<String> lacking = request.lacking(scope.deviceSelectors(flavor));
          if (lacking.isPresent()) {
            return "shared ResourceClaim "
                + claim
                + " (request "
                + request.request()
                + ", DeviceClass "
                + request.deviceClass()
                + ") does not carry the device selector '"
                + lacking.get()
                + "' of flavor "
                + flavor
                + ", which its Workload was admitted on for "
                + request.resource()
                + ": kube-scheduler could allocate it devices outside the flavor (add the selector"
                + " to the claim's request)";
          }
        }
      }
    }
    return null;
  }
}
