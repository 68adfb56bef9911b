package dev.berth.operator.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.TopologyRequest;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodRanksTest {
  private static final String INDEX = "batch.kubernetes.io/job-completion-index";
  private static final String GROUP = "jobset.sigs.k8s.io/job-index";

  private static Pod pod(Map<String, String> labels) {
    return new PodBuilder().withNewMetadata().withLabels(labels).endMetadata().build();
  }

  private static TopologyRequest request(String index, String group, Integer groups) {
    TopologyRequest r = new TopologyRequest();
    r.required = "rack";
    r.podIndexLabel = index;
    r.subGroupIndexLabel = group;
    r.subGroupCount = groups;
    return r;
  }

  @Test
  void aPodsRankIsItsIndex() {
    PodRanks ranks = PodRanks.of(request(INDEX, null, null), 4);
    assertThat(ranks.of(pod(Map.of(INDEX, "3")))).isEqualTo(3);
    assertThat(ranks.of(pod(Map.of(INDEX, "0")))).isZero();
  }

  @Test
  void aGroupedPodsRankCountsTheGroupsBeforeIt() {
    // 3 Jobs of 2 pods: job 2's pod 1 is the sixth pod.
    PodRanks ranks = PodRanks.of(request(INDEX, GROUP, 3), 6);
    assertThat(ranks.of(pod(Map.of(INDEX, "1", GROUP, "2")))).isEqualTo(5);
    assertThat(ranks.of(pod(Map.of(INDEX, "0", GROUP, "1")))).isEqualTo(2);
  }

  @Test
  void anUnreadableOrOutOfRangeLabelGivesNoRank() {
    PodRanks ranks = PodRanks.of(request(INDEX, GROUP, 2), 4);
    assertThat(ranks.of(pod(Map.of(INDEX, "2", GROUP, "0")))).isEqualTo(-1); // 2 pods a group
    assertThat(ranks.of(pod(Map.of(INDEX, "0", GROUP, "2")))).isEqualTo(-1); // 2 groups
    assertThat(ranks.of(pod(Map.of(INDEX, "-1", GROUP, "0")))).isEqualTo(-1);
    assertThat(ranks.of(pod(Map.of(INDEX, "x", GROUP, "0")))).isEqualTo(-1);
    assertThat(ranks.of(pod(Map.of(GROUP, "0")))).isEqualTo(-1);
    assertThat(ranks.of(pod(null))).isEqualTo(-1);
  }

  @Test
  void aRequestWithoutAnIndexOrWithUnevenGroupsHasNoRanks() {
    assertThat(PodRanks.of(null, 4)).isNull();
    assertThat(PodRanks.of(request(null, null, null), 4)).isNull();
    assertThat(PodRanks.of(request(INDEX, GROUP, 3), 4)).isNull();
    assertThat(PodRanks.of(request(INDEX, GROUP, null), 4)).isNull();
  }
}
