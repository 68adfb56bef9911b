package dev.berth.webhook.mutation;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * ClusterQueue defaults, as Kueue's: BestEffortFIFO, stopPolicy None, fungibility that stops at a
 * flavor that borrows but looks past one that would preempt, and no preemption. Written into the
 * object so that {@code kubectl get -o yaml} shows the policy in force.
 */
public final class ClusterQueueDefaulter implements Defaulter {
  @Override
  public void apply(ObjectNode cq, String namespace) {
    ObjectNode spec = Json.object(cq, "spec");
    if (spec == null) {
      return;
    }
    Json.defaultText(spec, "queueingStrategy", "BestEffortFIFO");
    Json.defaultText(spec, "stopPolicy", "None");
    ObjectNode fungibility = Json.object(spec, "flavorFungibility");
    Json.defaultText(fungibility, "whenCanBorrow", "MayStopSearch");
    Json.defaultText(fungibility, "whenCanPreempt", "TryNextFlavor");
    ObjectNode preemption = Json.object(spec, "preemption");
    Json.defaultText(preemption, "withinClusterQueue", "Never");
    Json.defaultText(preemption, "reclaimWithinCohort", "Never");
    if (preemption != null && preemption.get("borrowWithinCohort") instanceof ObjectNode borrow) {
      Json.defaultText(borrow, "policy", "Never");
    }
  }
}
