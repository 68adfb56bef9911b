package dev.berth.operator.integration;

import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.TopologyRequest;
import dev.berth.operator.admission.PodRequests;
import dev.berth.operator.kube.Copies;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Objects;

/**
 * Whether an owner still asks for what its Workload was written with: the same podSets, pod counts,
 * per-pod requests and topology requests. Only these decide quota and placement; the rest of a
 * template (and the flavor labels admission adds to it) does not.
 */
final class PodSetsMatch {
  private PodSetsMatch() {}

  static boolean of(List<PodSet> wanted, List<PodSet> held) {
    if (held == null || wanted.size() != held.size()) {
      return false;
    }
    for (int i = 0; i < wanted.size(); i++) {
      PodSet a = wanted.get(i);
      PodSet b = held.get(i);
      boolean same =
          Objects.equals(a.name, b.name)
              && Objects.equals(a.count, b.count)
              && Objects.equals(a.minCount, b.minCount)
              && PodRequests.of(a.template == null ? null : a.template.getSpec())
                  .equals(PodRequests.of(b.template == null ? null : b.template.getSpec()))
              && Serialization.asJson(placement(a.topologyRequest))
                  .equals(Serialization.asJson(placement(b.topologyRequest)));
      if (!same) {
        return false;
      }
    }
    return true;
  }

  /**
   * The parts of a topology request that decide where pods may go. The rank labels only order the
   * pods within the placement, and a Workload written before Berth filled them in must still match.
   */
  private static TopologyRequest placement(TopologyRequest request) {
    if (request == null) {
      return null;
    }
    TopologyRequest copy = Copies.deep(request);
    copy.podIndexLabel = null;
    copy.subGroupIndexLabel = null;
    copy.subGroupCount = null;
    return copy;
  }
}
