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
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Charges a new Workload for the devices its pods hold through ResourceClaimTemplates and
 * ResourceClaims: the templates and claims its pod sets' templates name are read from the API
 * server (the adapters that build the Workload are pure) and their devices, per quota resource of
 * the configuration's DeviceClass mappings, written on it ({@link DeviceRequests}), where the
 * admission loop adds them to the pod sets' requests.
 *
 * <p>A template gives each pod a claim of its own, so its devices are charged per pod. A shared
 * ResourceClaim is one allocation however many pods use it, so it is charged once for the Workload,
 * to the first pod set (in spec order) whose pods name it, whatever that pod set's count (partial
 * admission does not shrink it). A Workload whose claims cannot be charged at all (a DeviceClass
 * mapped to no quota resource, {@code allocationMode: All}, a template or claim not found) is not
 * created: the owner stays suspended with a Warning naming the field, never running uncharged.
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
  String charge(Workload workload, ClaimSource api) {
    // Each claim read once, so its charge and its recorded selectors are of the same object.
    ClaimSource source = SharedClaimRecorder.readOnce(api);
    SharedClaimRecorder recorder = new SharedClaimRecorder(mappings, source);
    String namespace = workload.getMetadata().getNamespace();
    var podSets = workload.getSpec().podSets;
    Map<String, Map<String, Long>> perPod = new LinkedHashMap<>();
    Map<String, Map<String, Long>> shared = new LinkedHashMap<>();
    Set<String> charged = new HashSet<>();
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
      PodClaims claims =
          PodClaims.of(namespace, spec, "spec.podSets[" + i + "].template.spec", source, mappings);
      problems.addAll(claims.problems());
      perPod.put(ps.name, claims.perPod());
      Map<String, Long> once = new TreeMap<>();
      claims
          .shared()
          .forEach(
              (claim, devices) -> {
                if (charged.add(claim)) {
                  devices.forEach((r, n) -> once.merge(r, n, Long::sum));
                  recorder.charged(ps.name, namespace, claim);
                }
              });
      shared.put(ps.name, once);
    }
    if (!problems.isEmpty()) {
      return String.join("; ", problems);
    }
    DeviceRequests.write(workload, perPod, shared);
    recorder.write(workload);
    return null;
  }
}
