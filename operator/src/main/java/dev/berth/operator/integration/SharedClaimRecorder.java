package dev.berth.operator.integration;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Workload;
import dev.berth.webhook.dra.ClaimSource;
import dev.berth.webhook.dra.DeviceClassMappings;
import dev.berth.webhook.dra.SharedClaimRequests;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Records on a new Workload, per pod set, the requests of the shared ResourceClaims charged to it
 * with the selectors they carry ({@link SharedClaimRequests}), read with the charge: the admission
 * loop gives a pod set only flavors whose device selectors its shared claims carry (docs/dra.md).
 */
final class SharedClaimRecorder {
  private final DeviceClassMappings mappings;
  private final ClaimSource source;
  private final Map<String, List<SharedClaimRequests.Request>> byPodSet = new LinkedHashMap<>();

  SharedClaimRecorder(DeviceClassMappings mappings, ClaimSource source) {
    this.mappings = mappings;
    this.source = source;
  }

  /** The shared claim {@code claim} is charged to {@code podSet}. */
  void charged(String podSet, String namespace, String claim) {
    source
        .claim(namespace, claim)
        .ifPresent(
            c ->
                byPodSet
                    .computeIfAbsent(podSet, p -> new ArrayList<>())
                    .addAll(SharedClaimRequests.of(claim, c.path("spec"), mappings)));
  }

  void write(Workload workload) {
    String value = SharedClaimRequests.write(byPodSet);
    if (value == null) {
      return;
    }
    Map<String, String> annotations = new TreeMap<>();
    if (workload.getMetadata().getAnnotations() != null) {
      annotations.putAll(workload.getMetadata().getAnnotations());
    }
    annotations.put(SharedClaimRequests.ANNOTATION, value);
    workload.getMetadata().setAnnotations(annotations);
  }

  /** {@code source}, each template and claim read from it once. */
  static ClaimSource readOnce(ClaimSource source) {
    Map<String, Optional<JsonNode>> templates = new HashMap<>();
    Map<String, Optional<JsonNode>> claims = new HashMap<>();
    return new ClaimSource() {
      @Override
      public Optional<JsonNode> template(String namespace, String name) {
        return templates.computeIfAbsent(
            namespace + "/" + name, k -> source.template(namespace, name));
      }

      @Override
      public Optional<JsonNode> claim(String namespace, String name) {
        return claims.computeIfAbsent(namespace + "/" + name, k -> source.claim(namespace, name));
      }
    };
  }
}
