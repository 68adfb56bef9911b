package dev.berth.operator.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Admission;
import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobAdapterTest {
  private final JobAdapter adapter = new JobAdapter();
  private final PriorityResolver noPriorities = new PriorityResolver(null);

  private static final Toleration GPU =
      new TolerationBuilder().withKey("nvidia.com/gpu").withOperator("Exists").withEffect("NoSchedule").build();

  private static final Integration.FlavorLookup FLAVORS =
      new Integration.FlavorLookup() {
        @Override
        public Map<String, String> nodeLabels(String flavor) {
          return Map.of("gpu", flavor);
        }

        @Override
        public List<Toleration> tolerations(String flavor) {
          return List.of(GPU);
        }
      };

  private static Job job(int parallelism, Integer completions) {
    return new JobBuilder()
        .withNewMetadata()
        .withName("train")
        .withNamespace("team")
        .withUid("0b7c7c1e-7d55-4b36-9a5e-1c2a6f1f3a10")
        .addToLabels(Berth.QUEUE_NAME_LABEL, "training")
        .endMetadata()
        .withNewSpec()
        .withSuspend(true)
        .withParallelism(parallelism)
        .withCompletions(completions)
        .withNewTemplate()
        .withNewSpec()
        .addToNodeSelector("zone", "a")
        .addNewContainer()
        .withName("main")
        .withNewResources()
        .addToRequests("nvidia.com/gpu", new Quantity("8"))
        .endResources()
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  private static Admission admission(int count) {
    PodSetAssignment ps = new PodSetAssignment();
    ps.name = "main";
    ps.flavors = Map.of("nvidia.com/gpu", "h100");
    ps.count = count;
    Admission admission = new Admission();
    admission.clusterQueue = "team-cq";
    admission.podSetAssignments = List.of(ps);
    return admission;
  }

  @Test
  void podCountIsTheSmallerOfParallelismAndCompletions() {
    assertThat(JobAdapter.podCount(job(4, 2))).isEqualTo(2);
    assertThat(JobAdapter.podCount(job(4, null))).isEqualTo(4);
    assertThat(JobAdapter.podCount(job(3, 10))).isEqualTo(3);
  }

  @Test
  void newWorkloadIsOwnedByTheJobAndCarriesItsQueueAndMinCount() {
    Job job = job(4, 4);
    job.getMetadata().setAnnotations(Map.of(Berth.JOB_MIN_PARALLELISM_ANNOTATION, "2"));
    Workload wl = adapter.newWorkload(job, noPriorities);
    assertThat(wl.getMetadata().getName()).startsWith("job-train-").hasSize("job-train-".length() + 5);
    assertThat(wl.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
      assertThat(o.getController()).isTrue();
      assertThat(o.getUid()).isEqualTo(job.getMetadata().getUid());
    });
    assertThat(wl.getMetadata().getLabels()).containsEntry(Berth.OWNER_KIND_LABEL, "Job");
    assertThat(wl.getSpec().queueName).isEqualTo("training");
    assertThat(wl.getSpec().priority).isZero();
    assertThat(wl.getSpec().podSets).singleElement().satisfies(ps -> {
      assertThat(ps.name).isEqualTo("main");
      assertThat(ps.count).isEqualTo(4);
      assertThat(ps.minCount).isEqualTo(2);
    });
  }

  @Test
  void admissionInjectsFlavorAndUnsuspends() {
    Job started = adapter.admitted(job(2, 2), admission(2), FLAVORS);
    assertThat(started.getSpec().getSuspend()).isFalse();
    assertThat(started.getSpec().getTemplate().getSpec().getNodeSelector())
        .containsEntry("zone", "a")
        .containsEntry("gpu", "h100");
    assertThat(started.getSpec().getTemplate().getSpec().getTolerations()).containsExactly(GPU);
    assertThat(started.getSpec().getParallelism()).isEqualTo(2);
  }

  @Test
  void partialAdmissionLowersParallelismAndEvictionRestoresIt() {
    Job original = job(4, 4);
    Job started = adapter.admitted(original, admission(3), FLAVORS);
    assertThat(started.getSpec().getParallelism()).isEqualTo(3);
    assertThat(started.getMetadata().getAnnotations()).containsEntry(JobAdapter.ORIGINAL_PARALLELISM, "4");

    Workload wl = adapter.newWorkload(original, noPriorities);
    Job restored = adapter.restored(started, wl);
    assertThat(restored.getSpec().getSuspend()).isTrue();
    assertThat(restored.getSpec().getParallelism()).isEqualTo(4);
    assertThat(restored.getMetadata().getAnnotations()).doesNotContainKey(JobAdapter.ORIGINAL_PARALLELISM);
    assertThat(restored.getSpec().getTemplate().getSpec().getNodeSelector()).containsExactlyEntriesOf(Map.of("zone", "a"));
    assertThat(restored.getSpec().getTemplate().getSpec().getTolerations()).isNullOrEmpty();
  }

  @Test
  void theOriginalJobIsNeverModified() {
    Job original = job(2, 2);
    adapter.admitted(original, admission(2), FLAVORS);
    assertThat(original.getSpec().getSuspend()).isTrue();
    assertThat(original.getSpec().getTemplate().getSpec().getNodeSelector()).containsOnlyKeys("zone");
  }

  @Test
  void completeAndFailedConditionsFinishTheWorkload() {
    Job done = job(1, 1);
    done.setStatus(new io.fabric8.kubernetes.api.model.batch.v1.JobStatus());
    assertThat(adapter.finished(done)).isEmpty();
    done.getStatus().setConditions(List.of(new JobConditionBuilder().withType("Failed").withStatus("True").withMessage("BackoffLimitExceeded").build()));
    assertThat(adapter.finished(done)).hasValueSatisfying(f -> {
      assertThat(f.succeeded()).isFalse();
      assertThat(f.message()).isEqualTo("BackoffLimitExceeded");
    });
    done.getStatus().setConditions(List.of(new JobConditionBuilder().withType("Complete").withStatus("True").build()));
    assertThat(adapter.finished(done)).hasValueSatisfying(f -> assertThat(f.succeeded()).isTrue());
  }
}
