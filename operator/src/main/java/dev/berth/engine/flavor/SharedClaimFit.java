package dev.berth.engine.flavor;

import dev.berth.engine.model.DeviceSelector;
import dev.berth.engine.model.PodSet;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.model.SharedClaimRequest;
import java.util.Set;

/**
 * Whether a podSet's shared ResourceClaims keep to a flavor's device selectors. Berth narrows the
 * claims Kubernetes makes from a pod's templates to its flavor, but a shared claim is the team's,
 * made before any admission, and its spec cannot change: kube-scheduler allocates it by its own
 * selectors alone. So a flavor whose selectors narrow a request's DeviceClass fits the podSet only
 * when the request already carries each of them (the same expression); otherwise the claim could
 * get devices outside the flavor (docs/dra.md).
 */
public final class SharedClaimFit {
  private SharedClaimFit() {}

  /**
   * Null when the podSet's shared claims keep to the flavor for the resources of its resource group
   * ({@code groupResources}: a flavor's selectors narrow only what is assigned that flavor), else
   * why not, naming the claim, the request and the selector it lacks.
   */
  public static String mismatch(PodSet podSet, ResourceFlavor flavor, Set<String> groupResources) {
    if (flavor.deviceSelectors().isEmpty()) {
      return null;
    }
    for (SharedClaimRequest r : podSet.sharedClaims()) {
      if (!groupResources.contains(r.resource())) {
        continue;
      }
      for (DeviceSelector s : flavor.deviceSelectors()) {
        if (s.narrows(r.deviceClass()) && !r.selectors().contains(s.expression())) {
          return "flavor "
              + flavor.name()
              + " selects devices of DeviceClass "
              + r.deviceClass()
              + " by '"
              + s.expression()
              + "', which shared ResourceClaim "
              + r.claim()
              + " (request "
              + r.request()
              + ") does not carry: Berth cannot narrow a claim the team made, so it could be"
              + " allocated devices outside the flavor (add the selector to the claim's request)";
        }
      }
    }
    return null;
  }
}
