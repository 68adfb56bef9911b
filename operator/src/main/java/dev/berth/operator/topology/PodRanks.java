package dev.berth.operator.topology;

import dev.berth.api.v1beta1.TopologyRequest;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;

/**
 * A pod's rank in its podSet, read from the labels its topology request names: its index ({@code
 * podIndexLabel}, a Job's completion index), plus its group's index times the pods per group when
 * the podSet is made of groups ({@code subGroupIndexLabel}, a JobSet's job index). Ranks let the
 * ungater put neighbouring ranks, which talk to each other most in a collective, into the same
 * domain; a pod without a readable rank in range has none (-1).
 */
final class PodRanks {
  private final String indexLabel;
  private final String groupLabel;
  private final int groups;
  private final int perGroup;

  private PodRanks(String indexLabel, String groupLabel, int groups, int perGroup) {
    this.indexLabel = indexLabel;
    this.groupLabel = groupLabel;
    this.groups = groups;
    this.perGroup = perGroup;
  }

  /** The ranks of a podSet of {@code total} pods, or null when its request names no index. */
  static PodRanks of(TopologyRequest request, int total) {
    if (request == null || request.podIndexLabel == null || total <= 0) {
      return null;
    }
    if (request.subGroupIndexLabel == null) {
      return new PodRanks(request.podIndexLabel, null, 1, total);
    }
    int groups = request.subGroupCount == null ? 0 : request.subGroupCount;
    if (groups <= 0 || total % groups != 0) {
      return null; // the webhook refuses such a request; a bypass gets no ranks, not wrong ones
    }
    return new PodRanks(request.podIndexLabel, request.subGroupIndexLabel, groups, total / groups);
  }

  /** The pod's rank in 0..total-1, or -1 when a label is missing, unreadable or out of range. */
  int of(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    if (labels == null) {
      return -1;
    }
    int index = read(labels.get(indexLabel), perGroup);
    if (index < 0) {
      return -1;
    }
    if (groupLabel == null) {
      return index;
    }
    int group = read(labels.get(groupLabel), groups);
    return group < 0 ? -1 : group * perGroup + index;
  }

  private static int read(String value, int bound) {
    if (value == null) {
      return -1;
    }
    try {
      int n = Integer.parseInt(value.trim());
      return n >= 0 && n < bound ? n : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
