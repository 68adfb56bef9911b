package dev.berth.operator.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.PodSet;
import dev.berth.operator.integration.job.JobAdapter;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** A suspended Job still matches its Workload unless what decides quota or placement changed. */
class PodSetsMatchTest {
  private final JobAdapter adapter = new JobAdapter();

  private static Job job(UnaryOperator<JobBuilder> change) {
    return change
        .apply(
            new JobBuilder()
                .withNewMetadata()
                .withName("train")
                .withNamespace("team")
                .addToLabels(Berth.QUEUE_NAME_LABEL, "training")
                .endMetadata()
                .withNewSpec()
                .withSuspend(true)
                .withParallelism(2)
                .withCompletions(2)
                .withNewTemplate()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withNewResources()
                .addToRequests("nvidia.com/gpu", new Quantity("1"))
                .endResources()
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec())
        .build();
  }

  private boolean matches(Job now, Job before) {
    return PodSetsMatch.of(adapter.podSets(now), adapter.podSets(before));
  }

  @Test
  void sameSizeAndRequestsMatch() {
    Job held = job(b -> b);
    // Flavor labels written at admission, or another image, decide neither quota nor placement.
    Job admitted =
        job(
            b ->
                b.editSpec()
                    .editTemplate()
                    .editSpec()
                    .addToNodeSelector("gpu", "h100")
                    .editFirstContainer()
                    .withImage("other")
                    .endContainer()
                    .endSpec()
                    .endTemplate()
                    .endSpec());
    assertThat(matches(admitted, held)).isTrue();
  }

  @Test
  void growingShrinkingOrAskingForMoreDoNotMatch() {
    Job held = job(b -> b);
    Job grown = job(b -> b.editSpec().withParallelism(8).withCompletions(8).endSpec());
    assertThat(matches(grown, held)).as("grown").isFalse();
    assertThat(matches(job(b -> b.editSpec().withParallelism(1).endSpec()), held))
        .as("shrunk")
        .isFalse();
    assertThat(
            matches(
                job(
                    b ->
                        b.editSpec()
                            .editTemplate()
                            .editSpec()
                            .editFirstContainer()
                            .editResources()
                            .addToRequests("nvidia.com/gpu", new Quantity("8"))
                            .endResources()
                            .endContainer()
                            .endSpec()
                            .endTemplate()
                            .endSpec()),
                held))
        .as("more GPUs")
        .isFalse();
    assertThat(
            matches(
                job(
                    b ->
                        b.editSpec()
                            .editTemplate()
                            .editOrNewMetadata()
                            .addToAnnotations(Berth.PODSET_REQUIRED_TOPOLOGY, "rack")
                            .endMetadata()
                            .endTemplate()
                            .endSpec()),
                held))
        .as("now topology-aware")
        .isFalse();
    assertThat(PodSetsMatch.of(adapter.podSets(held), List.<PodSet>of())).isFalse();
  }

  @Test
  void aWorkloadWrittenBeforeRanksStillMatchesItsIndexedJob() {
    Job indexed =
        job(
            b ->
                b.editSpec()
                    .withCompletionMode("Indexed")
                    .editTemplate()
                    .withNewMetadata()
                    .addToAnnotations(Berth.PODSET_REQUIRED_TOPOLOGY, "rack")
                    .endMetadata()
                    .endTemplate()
                    .endSpec());
    List<PodSet> now = adapter.podSets(indexed);
    assertThat(now.get(0).topologyRequest.podIndexLabel)
        .isEqualTo(TopologyAnnotations.JOB_COMPLETION_INDEX);
    List<PodSet> before = adapter.podSets(indexed);
    before.get(0).topologyRequest.podIndexLabel = null;
    assertThat(PodSetsMatch.of(now, before)).isTrue();
    // The placement itself still counts.
    before.get(0).topologyRequest.required = "block";
    assertThat(PodSetsMatch.of(now, before)).isFalse();
  }
}
