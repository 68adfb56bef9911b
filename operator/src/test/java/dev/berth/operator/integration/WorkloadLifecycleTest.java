package dev.berth.operator.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.admission.StatusConditions;
import dev.berth.operator.events.EventRecorder;
import dev.berth.operator.integration.job.JobAdapter;
import dev.berth.testing.Jobs;
import dev.berth.testing.Workloads;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What one reconcile of a Job writes for each state of the Job and its Workload: at most one write,
 * and the right one. Real Job and Workload objects; the writes go to {@link RecordedWrites}, a
 * stand-in for the API server's endpoints (the end-to-end suite runs the same steps on a real one).
 */
class WorkloadLifecycleTest {
  private static final Instant NOW = Instant.parse("2026-01-01T02:00:00Z");
  private static final String T0 = "2026-01-01T00:00:00Z";
  private static final String T1 = "2026-01-01T01:00:00Z";

  private static final Toleration GPU_TOLERATION =
      new TolerationBuilder()
          .withKey("nvidia.com/gpu")
          .withOperator("Exists")
          .withEffect("NoSchedule")
          .build();

  private static final Integration.FlavorLookup FLAVORS =
      FixedFlavors.labelled("gpu.product", GPU_TOLERATION);

  private final RecordedWrites api = new RecordedWrites();
  private final JobAdapter adapter = new JobAdapter();
  private final PriorityResolver noPriorities = new PriorityResolver(null);
  private final WorkloadLifecycle<Job> lifecycle =
      new WorkloadLifecycle<>(
          adapter,
          noPriorities,
          FLAVORS,
          // Events go nowhere: posted through the mocked client, they would use it from the
          // recorder's threads while the test stubs and calls it (Mockito mocks are not
          // thread-safe).
          new EventRecorder(event -> {}),
          Clock.fixed(NOW, ZoneOffset.UTC));

  /** Two pods of 8 GPUs, as a team submits it (suspended). */
  private static Jobs train() {
    return Jobs.named("train")
        .in("team")
        .uid("job-uid")
        .queue("lq")
        .parallelism(2)
        .request("nvidia.com/gpu", "8");
  }

  /**
   * The Workload the lifecycle creates for {@code job}, with the status of {@code status} (the
   * loop's writes, built with the shared builders).
   */
  private Workload workloadOf(Job job, Workloads status) {
    Workload wl = adapter.newWorkload(job, noPriorities);
    wl.getMetadata().setUid("wl-uid");
    wl.getMetadata().setResourceVersion("7");
    wl.setStatus(status.podSet("main", 2).request("nvidia.com/gpu", "8").build().getStatus());
    return wl;
  }

  /** The Workload of {@code job}, admitted at T0 and preempted at T1 (quota still held). */
  private Workload preempted(Job job) {
    return workloadOf(
        job, status().admitted("cq", "h100", T0).evicted("Preempted", T1).requeueState(1, T1));
  }

  private static Workloads status() {
    return Workloads.named("status");
  }

  /** {@code job} with a {@code Suspended} condition as the Job controller writes it. */
  private static Job withSuspendedCondition(Job job) {
    Job copy = Serialization.clone(job);
    if (copy.getStatus() == null) {
      copy.setStatus(new JobStatus());
    }
    copy.getStatus()
        .setConditions(
            List.of(
                new JobConditionBuilder()
                    .withType("Suspended")
                    .withStatus("True")
                    .withReason("JobSuspended")
                    .withMessage("Job suspended")
                    .build()));
    return copy;
  }

  /**
   * {@code job} (suspended) once Berth asked the Job controller to acknowledge the suspension and
   * it did: the request's mark, and Suspended=True written after it.
   */
  private Job acknowledged(Job job) {
    return withSuspendedCondition(adapter.stopRequested(job));
  }

  private static Workload released(RecordedWrites.Write write) {
    assertThat(write.verb()).isEqualTo("updateStatus");
    Workload workload = write.as(Workload.class);
    assertThat(workload.getStatus().admission).as("the quota given back").isNull();
    return workload;
  }

  private RecordedWrites.Write onlyWrite(Job job, Workload wl) {
    lifecycle.reconcile(api.client(), job, Optional.ofNullable(wl));
    List<RecordedWrites.Write> writes = api.take();
    assertThat(writes).as("one write per reconcile").hasSize(1);
    return writes.get(0);
  }

  private void noWrite(Job job, Workload wl) {
    lifecycle.reconcile(api.client(), job, Optional.ofNullable(wl));
    assertThat(api.take()).isEmpty();
  }

  @Test
  void aSuspendedJobWithoutAWorkloadGetsOneThatAsksForWhatItRuns() {
    RecordedWrites.Write write = onlyWrite(train().build(), null);

    assertThat(write.verb()).isEqualTo("create");
    Workload created = write.as(Workload.class);
    assertThat(created.getMetadata().getName()).isEqualTo(adapter.workloadName(train().build()));
    assertThat(created.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getUid()).isEqualTo("job-uid"));
    assertThat(created.getSpec().queueName).isEqualTo("lq");
    assertThat(created.getSpec().podSets)
        .singleElement()
        .satisfies(ps -> assertThat(ps.count).isEqualTo(2));
  }

  @Test
  void aJobRunningWithoutAWorkloadIsSuspendedFirst() {
    RecordedWrites.Write write = onlyWrite(train().suspended(false).build(), null);

    assertThat(write.verb()).isEqualTo("update");
    assertThat(write.as(Job.class).getSpec().getSuspend()).isTrue();
  }

  @Test
  void aPendingWorkloadKeepsItsJobSuspended() {
    Job job = train().build();
    noWrite(job, workloadOf(job, status()));

    Job running = train().suspended(false).build();
    RecordedWrites.Write write = onlyWrite(running, workloadOf(running, status()));
    assertThat(write.verb()).isEqualTo("update");
    assertThat(write.as(Job.class).getSpec().getSuspend()).isTrue();
  }

  @Test
  void anAdmittedWorkloadStartsItsJobOnTheAssignedFlavor() {
    Job job = train().build();
    RecordedWrites.Write write =
        onlyWrite(job, workloadOf(job, status().admitted("cq", "h100", T0)));

    assertThat(write.verb()).isEqualTo("update");
    Job started = write.as(Job.class);
    assertThat(started.getSpec().getSuspend()).isFalse();
    var pod = started.getSpec().getTemplate().getSpec();
    assertThat(pod.getNodeSelector()).containsEntry("gpu.product", "h100");
    assertThat(pod.getTolerations()).contains(GPU_TOLERATION);
    assertThat(job.getSpec().getSuspend()).as("the observed Job is not changed").isTrue();
  }

  @Test
  void aJobIsStartedOnlyIfItsStoredWorkloadStillHoldsTheAdmission() {
    Job job = train().build();
    Workload cached = workloadOf(job, status().admitted("cq", "h100", T0));
    // The informer's copy lags: the stored Workload was preempted and its quota given back.
    Workload released = workloadOf(job, status().evicted("Preempted", T1));
    released.getMetadata().setResourceVersion("9");
    api.stored(released);
    noWrite(job, cached);

    // Stored as admitted again, on another flavor: started on what is stored.
    Workload readmitted = workloadOf(job, status().admitted("cq", "a100", T1));
    readmitted.getMetadata().setResourceVersion("11");
    api.stored(readmitted);
    Job started = onlyWrite(job, cached).as(Job.class);
    assertThat(started.getSpec().getSuspend()).isFalse();
    assertThat(started.getSpec().getTemplate().getSpec().getNodeSelector())
        .containsEntry("gpu.product", "a100");
  }

  @Test
  void quotaIsGivenBackOnlyIfTheStoredJobIsStopped() {
    Job original = acknowledged(train().build());
    Workload evicted = preempted(original);
    // The informer's copy reads suspended with no pod, but Berth's own start of it, not yet seen
    // in the informer, is what is stored: its pods run, and the quota must stay.
    api.stored(
        adapter.admitted(
            original, workloadOf(original, status().admitted("cq", "h100", T0)), FLAVORS));
    noWrite(original, evicted);

    api.stored(original);
    released(onlyWrite(original, evicted));
  }

  @Test
  void quotaIsGivenBackOnlyOnceNoPodOfTheStoredJobRuns() {
    Job original = acknowledged(train().build());
    Workload evicted = preempted(original);
    api.stored(original);
    // Suspended, no start time, its status counting no pod: but the Job controller had created a
    // pod before it wrote that, and it is bound and running.
    api.livePods(
        new PodBuilder()
            .withNewMetadata()
            .withName("train-0")
            .endMetadata()
            .withNewSpec()
            .withNodeName("node-0")
            .endSpec()
            .withNewStatus()
            .withPhase("Running")
            .endStatus()
            .build());
    noWrite(original, evicted);

    api.livePods();
    released(onlyWrite(original, evicted));
  }

  @Test
  void aSuspendedConditionFromBeforeTheStartIsNoAcknowledgment() {
    // Created suspended, the Job controller wrote Suspended=True; Berth started it and, preempted,
    // suspended it again before the controller ever synced it running. The controller may still
    // be creating a pod from its copy that reads running: that Suspended=True says nothing.
    Job stale = withSuspendedCondition(train().build());
    Workload evicted = preempted(stale);
    api.stored(stale);

    RecordedWrites.Write request = onlyWrite(stale, evicted);
    assertThat(request.verb()).isEqualTo("updateStatus");
    Job requested = request.as(Job.class);
    assertThat(requested.getStatus().getConditions())
        .as("the condition taken away, for the controller to set again")
        .noneMatch(c -> c.getType().equals("Suspended"));
    assertThat(requested.getMetadata().getAnnotations())
        .containsKey(Berth.STOP_REQUESTED_ANNOTATION);

    // Asked, not yet acknowledged (the stored Job too): the quota stays.
    api.stored(requested);
    noWrite(requested, evicted);

    // The Job controller sets Suspended=True again: no more pods come, and none is listed.
    Job acknowledged = withSuspendedCondition(requested);
    api.stored(acknowledged);
    released(onlyWrite(acknowledged, evicted));
  }

  @Test
  void aJobBeingFinishedWithoutAStartTimeGetsOneBackAndKeepsItsQuota() {
    // Suspended, its last pod succeeded and counted, the Job controller wrote SuccessCriteriaMet
    // but cannot write Complete: its start time was cleared (the fault suite's sixth run).
    Job finishing = acknowledged(train().build());
    finishing.getStatus().setSucceeded(2);
    List<io.fabric8.kubernetes.api.model.batch.v1.JobCondition> conditions =
        new java.util.ArrayList<>(finishing.getStatus().getConditions());
    conditions.add(
        new JobConditionBuilder()
            .withType("SuccessCriteriaMet")
            .withStatus("True")
            .withLastTransitionTime(T1)
            .build());
    finishing.getStatus().setConditions(conditions);
    Workload evicted = preempted(finishing);
    api.stored(finishing);

    RecordedWrites.Write write = onlyWrite(finishing, evicted);
    assertThat(write.verb()).isEqualTo("updateStatus");
    assertThat(write.as(Job.class).getStatus().getStartTime()).isEqualTo(T1);

    // With its start time back, nothing is given back or cleared: the Complete write comes next.
    Job withStart = write.as(Job.class);
    api.stored(withStart);
    noWrite(withStart, evicted);
  }

  @Test
  void aJobRunByAnotherControllerIsNotWaitedFor() {
    // spec.managedBy names another controller: the built-in one never syncs it, so no
    // acknowledgment will come; the release is as before (suspended, no pod).
    Job other = train().build();
    other.getSpec().setManagedBy("example.com/multi-cluster");
    Workload evicted = preempted(other);
    api.stored(other);
    released(onlyWrite(other, evicted));
  }

  @Test
  void aStopRequestFromAnEarlierEvictionIsGoneOnceTheJobStarts() {
    Job acknowledged = acknowledged(train().build());
    Job started =
        adapter.admitted(
            acknowledged, workloadOf(acknowledged, status().admitted("cq", "h100", T0)), FLAVORS);
    assertThat(started.getMetadata().getAnnotations())
        .doesNotContainKey(Berth.STOP_REQUESTED_ANNOTATION);
    // Suspended again before the controller synced it running: the old Suspended=True is stale,
    // and without the mark it is not read as an acknowledgment.
    Job suspended = withSuspendedCondition(adapter.suspended(started));
    assertThat(adapter.suspensionAcknowledged(suspended)).isFalse();
    assertThat(adapter.awaitsStopRequest(suspended)).isTrue();
  }

  @Test
  void quotaReservedButChecksNotReadyDoesNotStartTheJob() {
    Job job = train().build();
    noWrite(job, workloadOf(job, status().reserved("cq", "h100", T0)));

    Job running = train().suspended(false).build();
    RecordedWrites.Write write =
        onlyWrite(running, workloadOf(running, status().reserved("cq", "h100", T0)));
    assertThat(write.as(Job.class).getSpec().getSuspend()).isTrue();
  }

  @Test
  void aCompleteJobFinishesItsWorkload() {
    Job job = train().suspended(false).build();
    job.setStatus(new JobStatus());
    job.getStatus()
        .setConditions(
            List.of(
                new JobConditionBuilder()
                    .withType("Complete")
                    .withStatus("True")
                    .withMessage("Reached expected number of succeeded pods")
                    .build()));
    Workload wl = workloadOf(job, status().admitted("cq", "h100", T0));

    RecordedWrites.Write write = onlyWrite(job, wl);

    assertThat(write.verb()).isEqualTo("updateStatus");
    Workload finished = write.as(Workload.class);
    assertThat(StatusConditions.find(finished.getStatus().conditions, StatusConditions.FINISHED))
        .hasValueSatisfying(
            c -> {
              assertThat(c.status).isEqualTo("True");
              assertThat(c.reason).isEqualTo("Succeeded");
              assertThat(c.lastTransitionTime).isEqualTo(NOW.toString());
            });
    assertThat(finished.getMetadata().getResourceVersion())
        .as("written against the version seen")
        .isEqualTo("7");
    assertThat(wl.getStatus().conditions)
        .as("the observed Workload is not changed")
        .noneMatch(c -> c.type.equals(StatusConditions.FINISHED));

    noWrite(job, finished);
  }

  @Test
  void evictionIsSuspendThenRestoreThenReleaseTheQuota() {
    Job original = train().build();
    Workload evicted = preempted(original);

    // Running on its flavor: suspended first.
    Job running =
        adapter.admitted(
            original, workloadOf(original, status().admitted("cq", "h100", T0)), FLAVORS);
    RecordedWrites.Write suspend = onlyWrite(running, evicted);
    assertThat(suspend.verb()).isEqualTo("update");
    Job suspended = suspend.as(Job.class);
    assertThat(suspended.getSpec().getSuspend()).isTrue();

    // Suspended: the Job controller is asked to acknowledge it (its Suspended condition reset).
    RecordedWrites.Write request = onlyWrite(suspended, evicted);
    assertThat(request.verb()).isEqualTo("updateStatus");
    Job requested = request.as(Job.class);

    // The template still carries the flavor: the user's template is put back.
    RecordedWrites.Write restore = onlyWrite(requested, evicted);
    assertThat(restore.verb()).isEqualTo("update");
    Job restored = restore.as(Job.class);
    assertThat(restored.getSpec().getTemplate().getSpec().getNodeSelector())
        .doesNotContainKey("gpu.product");
    assertThat(restored.getMetadata().getAnnotations())
        .as("the request stays on")
        .containsKey(Berth.STOP_REQUESTED_ANNOTATION);

    // No pod, but the Job controller has not acknowledged the suspension: the quota stays.
    api.stored(restored);
    noWrite(restored, evicted);
    restored = acknowledged(restored);
    api.stored(restored);

    // Restored, but a pod still terminates: the quota stays.
    Job stopping = Serialization.clone(restored);
    stopping.setStatus(new JobStatus());
    stopping.getStatus().setTerminating(1);
    noWrite(stopping, evicted);

    // Acknowledged, no pod left: the quota goes back and the Workload queues again.
    var status = released(onlyWrite(restored, evicted)).getStatus();
    assertThat(StatusConditions.find(status.conditions, StatusConditions.QUOTA_RESERVED))
        .hasValueSatisfying(
            c -> {
              assertThat(c.status).isEqualTo("False");
              assertThat(c.reason).isEqualTo("Requeued");
            });
    assertThat(StatusConditions.find(status.conditions, StatusConditions.REQUEUED))
        .hasValueSatisfying(
            c -> {
              assertThat(c.status).isEqualTo("True");
              assertThat(c.reason).isEqualTo("Preempted");
              assertThat(c.message).contains("not reconsidered before " + T1);
            });
  }

  @Test
  void anEvictedJobWithAStartTimeHasItClearedOnceItsPodsAreCounted() {
    Job original = train().build();
    Workload evicted =
        workloadOf(original, status().admitted("cq", "h100", T0).evicted("Preempted", T1));
    Job started = train().build();
    started.setStatus(new JobStatus());
    started.getStatus().setStartTime(T0);
    started.getStatus().setActive(1);
    noWrite(started, evicted);

    // The Job controller's suspend sync says no pod is active while the one it deleted still
    // runs and carries its tracking finalizer: not counted yet, so the start time stays.
    started.getStatus().setActive(0);
    api.livePods(
        new PodBuilder()
            .withNewMetadata()
            .withName("train-0")
            .withFinalizers("batch.kubernetes.io/job-tracking")
            .endMetadata()
            .withNewStatus()
            .withPhase("Running")
            .endStatus()
            .build());
    noWrite(started, evicted);

    api.livePods();
    RecordedWrites.Write write = onlyWrite(started, evicted);
    assertThat(write.verb()).isEqualTo("updateStatus");
    assertThat(write.as(Job.class).getStatus().getStartTime()).isNull();
  }

  @Test
  void aJobResizedWhileSuspendedGetsAWorkloadAtItsNewSize() {
    Job job = train().build();
    Workload wl = workloadOf(job, status());
    Job resized = train().parallelism(4).build();

    RecordedWrites.Write write = onlyWrite(resized, wl);

    assertThat(write.verb()).isEqualTo("delete");
    assertThat(write.object().getMetadata().getName()).isEqualTo(wl.getMetadata().getName());
  }

  @Test
  void aFinishedWorkloadIsLeftAlone() {
    Job job = train().suspended(false).build();
    noWrite(job, workloadOf(job, status().admitted("cq", "h100", T0).finished("Succeeded", T1)));
  }
}
