package dev.berth.operator.jobset;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class JobSetAdapterTest {
  private static JobSet jobSet(String uid) {
    JobSet js = new JobSet();
    js.getMetadata().setNamespace("ns");
    js.getMetadata().setName("train");
    js.getMetadata().setUid(uid);
    return js;
  }

  private static Job child(String ownerUid, Integer active, Integer terminating) {
    return new JobBuilder().withNewMetadata().withName("train-workers-0")
        .addNewOwnerReference().withKind("JobSet").withName("train").withUid(ownerUid)
        .endOwnerReference().endMetadata()
        .withNewStatus().withActive(active).withTerminating(terminating).endStatus().build();
  }

  @Test
  void terminatingPodsOfChildJobsStillCountAsRunning() {
    // A suspended JobSet's status says 0 active Jobs while its pods stop: they still hold GPUs.
    JobSet js = jobSet("uid-1");
    JobSetAdapter adapter = new JobSetAdapter(j -> List.of(
        child("uid-1", null, 2), child("uid-1", 1, 0)));
    assertThat(adapter.activePods(js)).isEqualTo(3);
  }

  @Test
  void childJobsOfAnEarlierJobSetOfTheSameNameDoNotCount() {
    JobSetAdapter adapter = new JobSetAdapter(j -> List.of(child("uid-old", 4, 4)));
    assertThat(adapter.activePods(jobSet("uid-new"))).isZero();
  }

  @Test
  void noPodLeftOnceEveryChildJobHasStopped() {
    JobSetAdapter adapter = new JobSetAdapter(j -> List.of(child("uid-1", 0, 0),
        new JobBuilder().withNewMetadata().addNewOwnerReference().withUid("uid-1")
            .endOwnerReference().endMetadata().build()));
    assertThat(adapter.activePods(jobSet("uid-1"))).isZero();
  }
}
