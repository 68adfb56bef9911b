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
    return new JobBuilder()
        .withNewMetadata()
        .withName("train-workers-0")
        .addNewOwnerReference()
        .withKind("JobSet")
        .withName("train")
        .withUid(ownerUid)
        .endOwnerReference()
        .endMetadata()
        .withNewStatus()
        .withActive(active)
        .withTerminating(terminating)
        .endStatus()
        .build();
  }

  @Test
  void terminatingPodsOfChildJobsStillCountAsRunning() {
    // A suspended JobSet's status says 0 active Jobs while its pods stop: they still hold GPUs.
    JobSet js = jobSet("uid-1");
    JobSetAdapter adapter =
        new JobSetAdapter(j -> List.of(child("uid-1", null, 2), child("uid-1", 1, 0)));
    assertThat(adapter.activePods(js)).isEqualTo(3);
  }

  @Test
  void childJobsOfAnEarlierJobSetOfTheSameNameDoNotCount() {
    JobSetAdapter adapter = new JobSetAdapter(j -> List.of(child("uid-old", 4, 4)));
    assertThat(adapter.activePods(jobSet("uid-new"))).isZero();
  }

  @Test
  void noPodLeftOnceEveryChildJobHasStopped() {
    JobSetAdapter adapter =
        new JobSetAdapter(
            j ->
                List.of(
                    child("uid-1", 0, 0),
                    new JobBuilder()
                        .withNewMetadata()
                        .addNewOwnerReference()
                        .withUid("uid-1")
                        .endOwnerReference()
                        .endMetadata()
                        .build()));
    assertThat(adapter.activePods(jobSet("uid-1"))).isZero();
  }

  @Test
  void readyPodsCountWholeReadyOrSucceededChildJobsOfEachReplicatedJob() {
    JobSet js = jobSet("uid-1");
    js.setSpec(new JobSet.Spec());
    js.getSpec().replicatedJobs = List.of(replicated("leader", 1, 1), replicated("workers", 4, 2));
    JobSetAdapter adapter = new JobSetAdapter(j -> List.of());
    assertThat(adapter.readyPods(js)).isZero();
    js.setStatus(new JobSet.Status());
    // workers: 2 child Jobs ready and 1 succeeded of 4, each of 2 pods; leader: 1 ready Job.
    js.getStatus().replicatedJobsStatus =
        List.of(
            java.util.Map.of("name", "leader", "ready", 1, "succeeded", 0),
            java.util.Map.of("name", "workers", "ready", 2, "succeeded", 1),
            java.util.Map.of("name", "gone", "ready", 9));
    assertThat(adapter.readyPods(js)).isEqualTo(1 + 3 * 2);
  }

  private static JobSet.ReplicatedJob replicated(String name, int replicas, int parallelism) {
    JobSet.ReplicatedJob rj = new JobSet.ReplicatedJob();
    rj.name = name;
    rj.replicas = replicas;
    rj.template =
        new io.fabric8.kubernetes.api.model.batch.v1.JobTemplateSpecBuilder()
            .withNewSpec()
            .withParallelism(parallelism)
            .withCompletions(parallelism)
            .endSpec()
            .build();
    return rj;
  }
}
