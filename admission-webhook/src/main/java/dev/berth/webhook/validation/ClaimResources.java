package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.webhook.dra.ChargedDevices;
import dev.berth.webhook.dra.PodClaims;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The devices a pod holds through its ResourceClaims and ResourceClaimTemplates, for the pod queue
 * rule: what the pod's claims would allocate is charged like a container request of the quota
 * resource its DeviceClass is mapped to, and a claim that cannot be charged (a DeviceClass mapped
 * to no quota resource, {@code allocationMode: All}, a template or claim that is not there) refuses
 * the pod in a managed namespace, so that no device is allocated outside quota (docs/dra.md).
 */
public final class ClaimResources {
  private static final FieldPath SPEC = FieldPath.root("spec");

  private final PodClaims claims;

  private ClaimResources(PodClaims claims) {
    this.claims = claims;
  }

  /** The claims of the pod spec (a pod's or a Job template's) in {@code namespace}. */
  public static ClaimResources of(String namespace, JsonNode spec, QueueScope scope) {
    if (PodClaims.none(spec)) {
      return new ClaimResources(new PodClaims(Map.of(), Map.of(), List.of()));
    }
    return new ClaimResources(PodClaims.of(namespace, spec, "spec", scope, scope.deviceClasses()));
  }

  /** The claims that cannot be charged, each refused at its field. */
  public List<FieldError> refusals() {
    return claims.problems().stream().map(ClaimResources::refusal).toList();
  }

  /** Adds the claims' devices of the {@code covered} resources to {@code asks}. */
  public Map<String, BigDecimal> addTo(Map<String, BigDecimal> asks, Set<String> covered) {
    claims
        .total()
        .forEach(
            (resource, n) -> {
              if (covered.contains(resource) && n > 0) {
                asks.merge(resource, BigDecimal.valueOf(n), BigDecimal::add);
              }
            });
    return asks;
  }

  /** The shared ResourceClaims the pod names that hold devices. */
  public Set<String> sharedClaims() {
    return claims.shared().keySet();
  }

  /** The quota resources of the devices the pod's claims hold. */
  public Set<String> resources() {
    return claims.total().keySet();
  }

  /** Whether the pod holds any device through its claims. */
  public boolean holdsDevices() {
    return !claims.total().isEmpty();
  }

  /**
   * Why the pod's claims hold more of a {@code covered} resource than its Workload was charged, or
   * null: its own claims (from templates) against what {@code charged} gives each pod of {@code
   * podSet}, its shared claims against every shared claim the Workload was charged. A template or
   * claim replaced by a bigger one after the Workload was created is caught here, since the pod's
   * claims are read now and the charge then.
   */
  public String beyond(ChargedDevices charged, String podSet, Set<String> covered) {
    Map<String, Long> shared = new java.util.TreeMap<>();
    claims.shared().values().forEach(d -> d.forEach((r, n) -> shared.merge(r, n, Long::sum)));
    String own = exceeding(claims.perPod(), charged.perPod(podSet), covered, "a pod");
    return own != null
        ? own
        : exceeding(shared, charged.sharedTotal(), covered, "once for its shared claims");
  }

  private static String exceeding(
      Map<String, Long> held, Map<String, Long> charged, Set<String> covered, String per) {
    for (Map.Entry<String, Long> e : held.entrySet()) {
      long allowed = charged.getOrDefault(e.getKey(), 0L);
      if (covered.contains(e.getKey()) && e.getValue() > allowed) {
        return "the pod's claims hold "
            + e.getValue()
            + " "
            + e.getKey()
            + " and its Workload was charged "
            + allowed
            + " "
            + per
            + " when it was created (a ResourceClaimTemplate or ResourceClaim replaced since then"
            + " is not charged)";
      }
    }
    return null;
  }

  /** The pod's first claim reference, when it has one. */
  public Optional<FieldPath> field() {
    return claims.total().isEmpty()
        ? Optional.empty()
        : Optional.of(SPEC.child("resourceClaims").index(0));
  }

  /** "{@code spec.resourceClaims[0] → inner: message}" or "{@code path: message}". */
  private static FieldError refusal(String problem) {
    int arrow = problem.indexOf(" → ");
    int colon = problem.indexOf(": ");
    int cut = arrow >= 0 && (colon < 0 || arrow < colon) ? arrow : colon;
    int skip = cut == arrow ? 3 : 2;
    return FieldError.forbidden(
        FieldPath.root(problem.substring(0, cut)), problem.substring(cut + skip));
  }
}
