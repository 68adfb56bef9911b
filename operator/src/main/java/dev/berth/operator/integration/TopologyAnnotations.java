package dev.berth.operator.integration;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.TopologyRequest;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import java.util.Map;

/**
 * The topology request a pod template asks for through its annotations: required, preferred or
 * unconstrained, and optionally slices (size and the level each slice shares). The webhook rejects
 * malformed values before a Job or JobSet is stored; here a value that is still unreadable (the
 * webhook was bypassed) is left out, and the Workload's own validation reports the rest.
 */
public final class TopologyAnnotations {
  private TopologyAnnotations() {}

  /** Null when the template asks for no topology. */
  public static TopologyRequest request(PodTemplateSpec template) {
    Map<String, String> annotations =
        template == null || template.getMetadata() == null
            ? null
            : template.getMetadata().getAnnotations();
    if (annotations == null) {
      return null;
    }
    TopologyRequest request = new TopologyRequest();
    request.required = blankToNull(annotations.get(Berth.PODSET_REQUIRED_TOPOLOGY));
    request.preferred = blankToNull(annotations.get(Berth.PODSET_PREFERRED_TOPOLOGY));
    if ("true".equals(annotations.get(Berth.PODSET_UNCONSTRAINED_TOPOLOGY))) {
      request.unconstrained = true;
    }
    request.podSetSliceRequiredTopology =
        blankToNull(annotations.get(Berth.PODSET_SLICE_REQUIRED_TOPOLOGY));
    request.podSetSliceSize = sliceSize(annotations.get(Berth.PODSET_SLICE_SIZE));
    request.podSetGroupName = blankToNull(annotations.get(Berth.PODSET_GROUP_NAME));
    if (request.required == null && request.preferred == null && request.unconstrained == null) {
      return null;
    }
    if (request.podSetSliceSize == null || request.podSetSliceRequiredTopology == null) {
      request.podSetSliceSize = null;
      request.podSetSliceRequiredTopology = null;
    }
    return request;
  }

  /** The label Kubernetes puts on each pod of an Indexed Job: its completion index. */
  public static final String JOB_COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";

  /** The label JobSet puts on each pod: the index of its Job within the replicated job. */
  public static final String JOBSET_JOB_INDEX = "jobset.sigs.k8s.io/job-index";

  /**
   * The request with the labels that rank its pods, so that the ungater puts neighbouring ranks in
   * the same domain; {@code groupLabel} null when the pods form one group. Null stays null.
   */
  public static TopologyRequest ranked(
      TopologyRequest request, String indexLabel, String groupLabel, int groups) {
    if (request == null) {
      return null;
    }
    request.podIndexLabel = indexLabel;
    if (groupLabel != null) {
      request.subGroupIndexLabel = groupLabel;
      request.subGroupCount = groups;
    }
    return request;
  }

  private static Integer sliceSize(String value) {
    try {
      int size = value == null ? 0 : Integer.parseInt(value.trim());
      return size >= 1 ? size : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.trim();
  }
}
