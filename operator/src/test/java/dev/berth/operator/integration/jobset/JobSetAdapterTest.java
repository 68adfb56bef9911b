package dev.berth.operator.integration.jobset;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Berth;
import dev.berth.operator.integration.job.JobAdapter;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import java.util.List;
import java.util.Map;
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

  /** A child Job of JobSet uid-1, suspended at generation 3, its pod stopped and counted. */
  private static Job suspendedChild(String name) {
    return new JobBuilder()
        .withNewMetadata()
        .withName(name)
        .withUid(name + "-uid")
        .withGeneration(3L)
        .addNewOwnerReference()
        .withKind("JobSet")
        .withName("train")
        .withUid("uid-1")
        .endOwnerReference()
        .endMetadata()
        .withNewSpec()
        .withSuspend(true)
        .endSpec()
        .withNewStatus()
        .withActive(0)
        .addNewCondition()
        .withType("Suspended")
        .withStatus("True")
        .endCondition()
        .endStatus()
        .build();
  }

  private static Pod pod(String jobUid, String phase, boolean tracked) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("pod-of-" + jobUid)
        .withLabels(Map.of(JobAdapter.CONTROLLER_UID_LABEL, jobUid))
        .withFinalizers(tracked ? List.of("batch.kubernetes.io/job-tracking") : List.of())
        .endMetadata()
        .withNewStatus()
        .withPhase(phase)
        .endStatus()
        .build();
  }

  @Test
  void eachSuspendedChildJobIsAskedOnceItsPodsAreCountedAndAcknowledgesItsOwnRequest() {
    JobSet js = jobSet("uid-1");
    Job workers = suspendedChild("train-workers-0");
    Job leader = suspendedChild("train-leader-0");
    leader.getSpec().setSuspend(false); // the JobSet controller has yet to suspend it
    JobSetAdapter adapter = new JobSetAdapter(j -> List.of(leader, workers));

    assertThat(adapter.awaitsStopRequest(js)).isTrue();
    // The workers' pod still carries the Job controller's finalizer: nothing to ask yet.
    assertThat(adapter.stopRequest(js, List.of(pod("train-workers-0-uid", "Failed", true))))
        .isEmpty();
    Job asked =
        adapter.stopRequest(js, List.of(pod("train-workers-0-uid", "Failed", false))).orElseThrow();
    assertThat(asked.getMetadata().getName()).isEqualTo("train-workers-0");
    assertThat(asked.getMetadata().getAnnotations())
        .containsEntry(Berth.STOP_REQUESTED_ANNOTATION, "3");
    assertThat(asked.getStatus().getConditions()).isEmpty();
    // Not acknowledged until the Job controller writes Suspended=True again, and the leader runs.
    assertThat(adapter.suspensionAcknowledged(js, List.of(asked))).isFalse();
    asked.getStatus().setConditions(workers.getStatus().getConditions());
    assertThat(adapter.suspensionAcknowledged(js, List.of(asked))).isTrue();
    assertThat(adapter.suspensionAcknowledged(js, List.of(asked, leader))).isFalse();
  }

  @Test
  void aRequestFromBeforeTheChildJobsLastResumeIsNoAcknowledgment() {
    // Asked at generation 3, then resumed and suspended again by the JobSet controller (spec
    // writes: generation 5); Suspended=True from before that resume says nothing of this one.
    JobSet js = jobSet("uid-1");
    Job child = suspendedChild("train-workers-0");
    child.getMetadata().setAnnotations(Map.of(Berth.STOP_REQUESTED_ANNOTATION, "3"));
    JobSetAdapter adapter = new JobSetAdapter(j -> List.of(child));
    assertThat(adapter.suspensionAcknowledged(js, List.of(child))).isTrue();
    assertThat(adapter.awaitsStopRequest(js)).isFalse();
    child.getMetadata().setGeneration(5L);
    assertThat(adapter.suspensionAcknowledged(js, List.of(child))).isFalse();
    assertThat(adapter.awaitsStopRequest(js)).isTrue();
  }

  @Test
  void aFinishedChildJobNeedsNoRequestAndPodsNotCountedYetHoldTheQuota() {
    JobSet js = jobSet("uid-1");
    Job done = suspendedChild("train-leader-0");
    done.getSpec().setSuspend(false);
    done.getStatus()
        .setConditions(
            List.of(
                new io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder()
                    .withType("Complete")
                    .withStatus("True")
                    .build()));
    JobSetAdapter adapter = new JobSetAdapter(j -> List.of(done));
    assertThat(adapter.awaitsStopRequest(js)).isFalse();
    assertThat(adapter.suspensionAcknowledged(js, List.of(done))).isTrue();
    assertThat(adapter.childJobLabels(js))
        .containsExactly(Map.entry(JobSetAdapter.JOBSET_NAME_LABEL, "train"));
    assertThat(adapter.hasPodsToCount(js, List.of(pod("x", "Succeeded", false)))).isFalse();
    assertThat(adapter.hasPodsToCount(js, List.of(pod("x", "Running", false)))).isTrue();
    assertThat(adapter.hasPodsToCount(js, List.of(pod("x", "Failed", true)))).isTrue();
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

  @Test
  void ownerStatusIsTheJobSetControllersLatestConditionThatHolds() {
    JobSetAdapter adapter = new JobSetAdapter(j -> List.of());
    JobSet waiting = jobSet("uid-1");
    waiting.setSpec(new JobSet.Spec());
    waiting.getSpec().suspend = true;
    assertThat(adapter.ownerStatus(waiting)).isEqualTo("Suspended");
    JobSet done = jobSet("uid-2");
    done.setSpec(new JobSet.Spec());
    done.getSpec().suspend = false;
    done.setStatus(new JobSet.Status());
    done.getStatus().conditions =
        List.of(
            condition("Completed", "True", "2026-12-01T11:00:00Z"),
            condition("StartupPolicyCompleted", "True", "2026-12-01T10:00:00Z"),
            condition("Suspended", "False", "2026-12-01T12:00:00Z"));
    assertThat(adapter.ownerStatus(done)).isEqualTo("Completed");
  }

  private static Map<String, Object> condition(String type, String status, String at) {
    return Map.of("type", type, "status", status, "lastTransitionTime", at);
  }
}
