package dev.berth.operator.integration;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.admission.DeviceRequests;
import dev.berth.webhook.dra.ApiClaimSource;
import dev.berth.webhook.dra.ClaimSource;
import dev.berth.webhook.dra.DeviceClassMappings;
import dev.berth.webhook.dra.PodClaims;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Charges a new Workload for the devices its pods hold through ResourceClaimTemplates and
 * ResourceClaims: the templates and claims its pod sets' templates name are read from the API
 * server (the adapters that build the Workload are pure) and their devices, per quota resource of
 * the configuration's DeviceClass mappings, written on it ({@link DeviceRequests}), where the
 * admission loop adds them to each pod's requests.
 *
 * <p>A shared ResourceClaim is one allocation however many pods use it, and quota is charged per
 * pod: it is charged when one pod set of one pod names it (its pod holds the claim's devices), and
 * otherwise the Workload is not created, as is one whose claims cannot be charged at all (a
 * DeviceClass mapped to no quota resource, {@code allocationMode: All}, a template or claim not
 * found): the owner stays suspended with a Warning naming the field, never running uncharged.
 */
public final class DeviceCharges {
  public static final DeviceCharges NONE = new DeviceCharges(DeviceClassMappings.NONE);

  private final DeviceClassMappings mappings;

  public DeviceCharges(DeviceClassMappings mappings) {
    this.mappings = mappings;
  }

  /**
   * Writes the devices on {@code workload}; returns why they cannot be charged, or null when they
   * are (or its pods hold none).
   */
  public String charge(KubernetesClient client, Workload workload) {
    return charge(workload, new ApiClaimSource(client));
  }

  /** As {@link #charge(KubernetesClient, Workload)}, reading the claims from {@code source}. */
  String charge(Workload workload, ClaimSource source) {
    String namespace = workload.getMetadata().getNamespace();
    var podSets = workload.getSpec().podSets;
    Map<String, Map<String, Long>> devices = new LinkedHashMap<>();
    Map<String, String> sharedBy = new HashMap<>();
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < podSets.size(); i++) {
      var ps = podSets.get(i);
      if (ps.template == null || ps.template.getSpec() == null) {
        continue;
      }
      JsonNode spec = Serialization.jsonMapper().valueToTree(ps.template.getSpec());
      if (PodClaims.none(spec)) {
        continue;
      }
      String at = "spec.podSets[" + i + "].template.spec";
      PodClaims claims = PodClaims.of(namespace, spec, at, source, mappings);
      problems.addAll(claims.problems());
      Map<String, Long> perPod = new java.util.TreeMap<>(claims.perPod());
      int count = ps.count == null ? 1 : ps.count;
      for (var shared : claims.shared().entrySet()) {
        String before = sharedBy.put(shared.getKey(), ps.name);
        if (count != 1 || before != null) {
          problems.add(
              at
                  + ".resourceClaims: ResourceClaim "
                  + shared.getKey()
                  + " is shared by several pods; Berth charges quota per pod and cannot yet"
                  + " charge a shared claim's devices once (docs/dra.md): use a"
                  + " ResourceClaimTemplate");
        } else {
          shared.getValue().forEach((r, n) -> perPod.merge(r, n, Long::sum));
        }
      }
      devices.put(ps.name, perPod);
    }
    if (!problems.isEmpty()) {
      return String.join("; ", problems);
    }
    DeviceRequests.write(workload, devices);
    return null;
  }
}
