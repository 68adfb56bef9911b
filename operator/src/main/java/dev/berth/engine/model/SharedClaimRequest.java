package dev.berth.engine.model;

import java.util.List;
import java.util.Objects;

/**
 * A request (or {@code firstAvailable} subrequest, named {@code request/subrequest}) of a shared
 * ResourceClaim a podSet is charged for, with the selectors the claim itself carries: Berth cannot
 * add a flavor's selectors to a claim the team made, so only those decide which devices it gets.
 *
 * @param claim the ResourceClaim's name
 * @param resource the quota resource its DeviceClass is mapped to
 * @param selectors the CEL expressions of the request's own selectors
 */
public record SharedClaimRequest(
    String claim, String request, String deviceClass, String resource, List<String> selectors) {
  public SharedClaimRequest {
    Objects.requireNonNull(claim, "claim");
    Objects.requireNonNull(resource, "resource");
    selectors = selectors == null ? List.of() : List.copyOf(selectors);
  }
}
