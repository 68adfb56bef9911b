package dev.berth.operator.integration;

import dev.berth.api.v1beta1.PodSet;
import dev.berth.operator.admission.PodRequests;
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
              && Serialization.asJson(a.topologyRequest)
                  .equals(Serialization.asJson(b.topologyRequest));
      if (!same) {
        return false;
      }
    }
    return true;
  }
}
