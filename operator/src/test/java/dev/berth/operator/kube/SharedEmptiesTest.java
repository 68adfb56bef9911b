package dev.berth.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A cached Workload's empty fabric8 collections are the shared ones; what it says is unchanged. */
class SharedEmptiesTest {
  private static final String JSON =
      """
      {"apiVersion":"berth.dev/v1beta1","kind":"Workload",
       "metadata":{"name":"w","namespace":"team-a","uid":"u1","labels":{"class":"small"}},
       "spec":{"queueName":"lq","podSets":[{"name":"main","count":1,"template":{"spec":
         {"containers":[{"name":"c","image":"busybox",
           "resources":{"requests":{"cpu":"1"}}}]}}}]}}
      """;

  private static Workload stored() {
    Workload wl = Serialization.unmarshal(JSON, Workload.class);
    new SharedLeanItemStore<Workload>(new SharedVersions()).put("team-a/w", wl);
    return wl;
  }

  @Test
  void emptyCollectionsAreSharedAndTheObjectReadsTheSame() {
    Workload wl = stored();
    PodSpec spec = wl.getSpec().podSets.get(0).template.getSpec();
    Container c = spec.getContainers().get(0);
    assertThat(spec.getVolumes()).isSameAs(List.of());
    assertThat(c.getEnv()).isSameAs(List.of());
    assertThat(spec.getAdditionalProperties()).isSameAs(Map.of());
    assertThat(c.getResources().getRequests().get("cpu").getAdditionalProperties())
        .as("into maps' values too")
        .isSameAs(Map.of());
    assertThat(c.getResources().getRequests().get("cpu").getAmount()).isEqualTo("1");
    assertThat(Serialization.asJson(wl))
        .isEqualTo(Serialization.asJson(Serialization.unmarshal(JSON, Workload.class)));
  }

  @Test
  void collectionsBerthCopiesIntoObjectsItChangesStayTheirOwn() {
    Workload wl = stored();
    PodSpec spec = wl.getSpec().podSets.get(0).template.getSpec();
    // A Job suspended again takes these by reference and may add to them.
    assertThat(spec.getTolerations()).isNotSameAs(List.of());
    assertThat(spec.getNodeSelector()).isNotSameAs(Map.of());
    spec.getTolerations().add(new io.fabric8.kubernetes.api.model.Toleration());
    spec.getNodeSelector().put("k", "v");
    assertThat(wl.getMetadata().getFinalizers()).isNotSameAs(List.of());
  }

  @Test
  void aCopyForAWriteHasCollectionsOfItsOwn() {
    Workload copy = Serialization.clone(stored());
    PodSpec spec = copy.getSpec().podSets.get(0).template.getSpec();
    spec.getVolumes().add(new io.fabric8.kubernetes.api.model.Volume());
    spec.getAdditionalProperties().put("x", "y");
    assertThat(spec.getVolumes()).hasSize(1);
  }
}
