package dev.berth.operator.integration.pod;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Berth;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A pod group's members, excess, replacements and end, as its pods show them. */
class PodGroupTest {
  /** Pod {@code name} of group trio (of {@code total}), created at second {@code second}. */
  private static PodBuilder pod(String name, int second, String total) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("team")
        .withUid("uid-" + name)
        .withCreationTimestamp("2026-01-01T00:00:%02dZ".formatted(second))
        .addToLabels(Berth.QUEUE_NAME_LABEL, "lq")
        .addToLabels(Berth.MANAGED_LABEL, "true")
        .addToLabels(Berth.POD_GROUP_NAME_LABEL, "trio")
        .addToAnnotations(Berth.POD_GROUP_TOTAL_COUNT_ANNOTATION, total)
        .endMetadata()
        .withNewSpec()
        .addNewSchedulingGate(Berth.ADMISSION_SCHEDULING_GATE)
        .addNewContainer()
        .withName("c")
        .withNewResources()
        .addToRequests("nvidia.com/gpu", new Quantity("4"))
        .endResources()
        .endContainer()
        .endSpec();
  }

  private static Pod gated(String name, int second) {
    return pod(name, second, "3").build();
  }

  private static Pod inPhase(String name, int second, String phase) {
    return pod(name, second, "3")
        .editSpec()
        .withSchedulingGates(List.of())
        .endSpec()
        .withNewStatus()
        .withPhase(phase)
        .endStatus()
        .build();
  }

  private static PodGroup group(Pod... pods) {
    PodGroup.Result result = PodGroup.of("team", "trio", List.of(pods));
    assertThat(result.problem()).isNull();
    return result.group();
  }

  private static List<String> names(List<Pod> pods) {
    return pods.stream().map(p -> p.getMetadata().getName()).toList();
  }

  @Test
  void itIsCompleteOnlyWithAllItsPodsAndIsOnePodSetOfThem() {
    assertThat(group(gated("a", 1), gated("b", 2)).complete()).isFalse();
    PodGroup whole = group(gated("c", 3), gated("a", 1), gated("b", 2));
    assertThat(whole.complete()).isTrue();
    assertThat(names(whole.members())).containsExactly("a", "b", "c");
    assertThat(names(whole.toRelease())).containsExactly("a", "b", "c");
    assertThat(whole.podSets())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.count).isEqualTo(3);
              assertThat(p.template.getSpec().getSchedulingGates()).isNull();
            });
  }

  @Test
  void podsBeyondTheTotalAreExcessWhileGated() {
    PodGroup group = group(inPhase("a", 1, "Running"), gated("b", 2), gated("c", 3), gated("d", 4));
    assertThat(names(group.members())).containsExactly("a", "b", "c");
    assertThat(names(group.excess())).containsExactly("d");
    assertThat(names(group.toRelease())).containsExactly("b", "c");
  }

  @Test
  void aFailedPodIsReplacedByANewerOne() {
    PodGroup group =
        group(
            inPhase("a", 1, "Failed"),
            inPhase("b", 2, "Running"),
            inPhase("c", 3, "Running"),
            gated("a2", 9));
    assertThat(names(group.members())).containsExactly("b", "c", "a2");
    assertThat(group.excess()).isEmpty();
    assertThat(names(group.toRelease())).containsExactly("a2");
    assertThat(group.finished()).isEmpty();
    assertThat(names(group.toStop())).containsExactly("b", "c", "a2");
  }

  @Test
  void itSucceedsWhenTotalCountPodsHave() {
    assertThat(
            group(
                    inPhase("a", 1, "Succeeded"),
                    inPhase("b", 2, "Succeeded"),
                    inPhase("c", 3, "Running"))
                .finished())
        .isEmpty();
    assertThat(
            group(
                    inPhase("a", 1, "Failed"),
                    inPhase("a2", 4, "Succeeded"),
                    inPhase("b", 2, "Succeeded"),
                    inPhase("c", 3, "Succeeded"))
                .finished())
        .hasValueSatisfying(f -> assertThat(f.succeeded()).isTrue());
  }

  @Test
  void itFailsOnlyWhenItWillNotReplaceFailedPodsAndNoneRuns() {
    Pod last =
        pod("c", 3, "3")
            .editMetadata()
            .addToAnnotations(Berth.RETRIABLE_IN_GROUP_ANNOTATION, "false")
            .endMetadata()
            .withNewStatus()
            .withPhase("Failed")
            .endStatus()
            .build();
    assertThat(group(inPhase("a", 1, "Failed"), inPhase("b", 2, "Running"), last).finished())
        .isEmpty();
    assertThat(group(inPhase("a", 1, "Failed"), inPhase("b", 2, "Succeeded"), last).finished())
        .hasValueSatisfying(
            f -> {
              assertThat(f.succeeded()).isFalse();
              assertThat(f.message()).startsWith("1 of 3 pods of group trio succeeded");
            });
  }

  @Test
  void podsThatDisagreeOnTheTotalAreNoGroup() {
    List<Pod> pods = new ArrayList<>(List.of(gated("a", 1), pod("b", 2, "4").build()));
    assertThat(PodGroup.of("team", "trio", pods).problem())
        .isEqualTo("the pods of group trio disagree on berth.dev/pod-group-total-count (3 and 4)");
    assertThat(PodGroup.of("team", "trio", List.of(pod("x", 1, "zero").build())).problem())
        .contains("has no positive berth.dev/pod-group-total-count");
  }
}
