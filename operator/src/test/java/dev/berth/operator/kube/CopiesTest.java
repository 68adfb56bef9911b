package dev.berth.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.admission.StatusConditions;
import dev.berth.testing.Workloads;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CopiesTest {
  private final Workload cached =
      Workloads.named("train")
          .in("team")
          .uid("uid-1")
          .resourceVersion("42")
          .annotation("team", "llm")
          .queue("llm")
          .podSet("main", 2)
          .request("nvidia.com/gpu", "8")
          .admitted("cq", "h100", "2026-12-05T10:00:00Z")
          .build();

  @Test
  void theCopyWritesTheSameJsonAsAWholeClone() {
    assertThat(Serialization.asJson(Copies.forStatus(cached)))
        .isEqualTo(Serialization.asJson(Serialization.clone(cached)));
  }

  @Test
  void changingTheCopysStatusOrMetadataLeavesTheCachedWorkloadAsItWas() {
    String before = Serialization.asJson(cached);
    Workload copy = Copies.forStatus(cached);

    StatusConditions.set(
        copy.getStatus(), StatusConditions.QUOTA_RESERVED, false, "Pending", "x", Instant.now());
    copy.getStatus().conditions.get(0).message = "changed in place";
    copy.getStatus().admission.podSetAssignments.get(0).resourceUsage.clear();
    copy.getMetadata().setResourceVersion("43");
    copy.getMetadata().getAnnotations().put("team", "other");

    assertThat(Serialization.asJson(cached)).isEqualTo(before);
  }

  @Test
  void theSpecIsSharedAndAWorkloadWithoutStatusGetsNone() {
    assertThat(Copies.forStatus(cached).getSpec()).isSameAs(cached.getSpec());
    Workload fresh = Workloads.named("new").in("team").queue("llm").podSet("main", 1).build();
    fresh.setStatus(null);
    assertThat(Copies.forStatus(fresh).getStatus()).isNull();
  }
}
