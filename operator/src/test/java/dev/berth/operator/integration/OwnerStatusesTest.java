package dev.berth.operator.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OwnerStatusesTest {
  private final Map<String, Workload> workloads = new HashMap<>();
  private final Map<ResourceID, Pod> pods = new HashMap<>();
  private final OwnerStatuses owners =
      new OwnerStatuses((ns, name) -> Optional.ofNullable(workloads.get(ns + "/" + name)));

  private static Pod pod(String name, String phase) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("team")
        .endMetadata()
        .withNewStatus()
        .withPhase(phase)
        .endStatus()
        .build();
  }

  private void workload(String name, String kind, String... ownerNames) {
    Workload w = new Workload();
    w.getMetadata().setNamespace("team");
    w.getMetadata().setName(name);
    w.getMetadata()
        .setOwnerReferences(
            java.util.Arrays.stream(ownerNames)
                .map(
                    n ->
                        new OwnerReferenceBuilder()
                            .withKind(kind)
                            .withName(n)
                            .withApiVersion("v1")
                            .withUid(n + "-uid")
                            .build())
                .toList());
    workloads.put("team/" + name, w);
  }

  private void addPods(Pod... ps) {
    for (Pod p : ps) {
      pods.put(ResourceID.fromResource(p), p);
    }
    owners.add("Pod", id -> Optional.ofNullable(pods.get(id)), p -> p.getStatus().getPhase());
  }

  @Test
  void oneOwnerWithItsKindsOwnState() {
    addPods(pod("notebook", "Running"));
    workload("pod-notebook", "Pod", "notebook");
    assertThat(owners.of("team", "pod-notebook"))
        .contains(new OwnerStatuses.Owner("Pod", "notebook", 1, "Running"));
  }

  @Test
  void aPodGroupCountsItsPodsStates() {
    addPods(pod("web-0", "Running"), pod("web-1", "Pending"), pod("web-2", "Running"));
    workload("group", "Pod", "web-0", "web-1", "web-2");
    assertThat(owners.of("team", "group"))
        .contains(new OwnerStatuses.Owner("Pod", "web-0", 3, "Running 2, Pending 1"));
  }

  @Test
  void aKindThatIsNotRunningNamesTheOwnerWithoutAState() {
    workload("job-train", "Job", "train");
    assertThat(owners.of("team", "job-train"))
        .contains(new OwnerStatuses.Owner("Job", "train", 1, ""));
    assertThat(owners.of("team", "missing")).isEmpty();
  }

  @Test
  void theLatestConditionThatHoldsWins() {
    assertThat(
            OwnerStatuses.latestHolding(
                List.of(
                    Map.of("type", "Created", "status", "True"),
                    condition("Running", "True", "2026-12-01T10:00:00Z"),
                    condition("Restarting", "False", "2026-12-01T11:00:00Z"))))
        .contains("Running");
    assertThat(OwnerStatuses.latestHolding(List.of(Map.of("type", "A", "status", "False"))))
        .isEmpty();
    assertThat(OwnerStatuses.latestHolding(null)).isEmpty();
  }

  private static Map<String, Object> condition(String type, String status, String at) {
    return Map.of("type", type, "status", status, "lastTransitionTime", at);
  }
}
