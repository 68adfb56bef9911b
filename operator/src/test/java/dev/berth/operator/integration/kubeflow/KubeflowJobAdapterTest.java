package dev.berth.operator.integration.kubeflow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Admission;
import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadPriorityClass;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.operator.integration.FixedFlavors;
import dev.berth.operator.integration.Integration;
import dev.berth.operator.integration.PriorityResolver;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KubeflowJobAdapterTest {
  private static final Toleration SPOT =
      new Toleration("NoSchedule", "node.berth.dev/lifecycle", "Equal", null, "spot");
  private static final FixedFlavors FLAVORS = FixedFlavors.labelled("pool", SPOT);

  private final PyTorchJobAdapter pytorch = new PyTorchJobAdapter();
  private final MPIJobAdapter mpi = new MPIJobAdapter();

  private static PyTorchJob pytorchJob(Integer workers) {
    PyTorchJob job =
        Serialization.unmarshal(
            """
            apiVersion: kubeflow.org/v1
            kind: PyTorchJob
            metadata: {name: ddp, namespace: team, uid: job-uid, labels: {berth.dev/queue-name: lq}}
            spec:
              runPolicy: {suspend: true, cleanPodPolicy: Running, backoffLimit: 3}
              nprocPerNode: "8"
              pytorchReplicaSpecs:
                Worker:
                  restartPolicy: OnFailure
                  template:
                    spec:
                      nodeSelector: {disk: ssd}
                      containers:
                      - {name: pytorch, image: trainer:1, resources: {requests: {nvidia.com/gpu: "8"}}}
                Master:
                  replicas: 1
                  template:
                    spec:
                      containers:
                      - {name: pytorch, image: trainer:1, resources: {requests: {nvidia.com/gpu: "8"}}}
            """,
            PyTorchJob.class);
    job.getSpec().pytorchReplicaSpecs.get("Worker").replicas = workers;
    return job;
  }

  private static MPIJob mpiJob() {
    return Serialization.unmarshal(
        """
        apiVersion: kubeflow.org/v1
        kind: MPIJob
        metadata: {name: pi, namespace: team, uid: mpi-uid, labels: {berth.dev/queue-name: lq}}
        spec:
          slotsPerWorker: 8
          mpiReplicaSpecs:
            Launcher:
              template:
                spec:
                  priorityClassName: launcher-class
                  containers: [{name: mpi, image: mpi:1}]
            Worker:
              replicas: 4
              template:
                spec:
                  priorityClassName: worker-class
                  containers: [{name: mpi, image: mpi:1, resources: {requests: {nvidia.com/gpu: "8"}}}]
        """,
        MPIJob.class);
  }

  /** Admitted on flavor {@code flavor} for every podSet named. */
  private static Workload admitted(String flavor, String... podSets) {
    List<PodSetAssignment> assignments = new ArrayList<>();
    for (String name : podSets) {
      PodSetAssignment a = new PodSetAssignment();
      a.name = name;
      a.flavors = Map.of("nvidia.com/gpu", flavor);
      assignments.add(a);
    }
    Admission admission = new Admission();
    admission.clusterQueue = "cq";
    admission.podSetAssignments = assignments;
    Workload wl = new Workload();
    wl.getMetadata().setUid("wl-uid");
    wl.setStatus(new WorkloadStatus());
    wl.getStatus().admission = admission;
    return wl;
  }

  @Test
  void aPodSetPerReplicaTypeInTheKindsOrderNamedInLowerCase() {
    assertThat(pytorch.podSets(pytorchJob(3)))
        .extracting(ps -> ps.name + "=" + ps.count)
        .containsExactly("master=1", "worker=3");
    // Replicas unset: one pod, as the training operator defaults it.
    assertThat(pytorch.podSets(pytorchJob(null)))
        .extracting(ps -> ps.name + "=" + ps.count)
        .containsExactly("master=1", "worker=1");
    assertThat(mpi.podSets(mpiJob()))
        .extracting(ps -> ps.name + "=" + ps.count)
        .containsExactly("launcher=1", "worker=4");
    PyTorchJob masterOnly = pytorchJob(1);
    masterOnly.getSpec().pytorchReplicaSpecs.remove("Worker");
    assertThat(pytorch.podSets(masterOnly)).extracting(ps -> ps.name).containsExactly("master");
  }

  @Test
  void theWorkloadIsNamedAfterTheKindAndOwnedByTheJob() {
    PriorityResolver priorities = new PriorityResolver(null);
    WorkloadPriorityClass high = new WorkloadPriorityClass();
    high.getMetadata().setName("high");
    high.setValue(1000);
    priorities.workloadPriorityClass(high);
    PyTorchJob job = pytorchJob(2);
    job.getMetadata().setLabels(new LinkedHashMap<>(job.getMetadata().getLabels()));
    job.getMetadata().getLabels().put(Berth.PRIORITY_CLASS_LABEL, "high");
    Workload wl = pytorch.newWorkload(job, priorities);
    assertThat(wl.getMetadata().getName()).startsWith("pytorchjob-ddp-");
    assertThat(wl.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.getApiVersion()).isEqualTo("kubeflow.org/v1");
              assertThat(o.getKind()).isEqualTo("PyTorchJob");
              assertThat(o.getUid()).isEqualTo("job-uid");
            });
    assertThat(wl.getSpec().queueName).isEqualTo("lq");
    assertThat(wl.getSpec().priority).isEqualTo(1000);
    assertThat(mpi.workloadName(mpiJob())).startsWith("mpijob-pi-");
  }

  @Test
  void thePodsPriorityClassIsTheSchedulingPolicysElseTheFirstTemplatesThatNamesOne() {
    MPIJob job = mpiJob();
    assertThat(mpi.priorityTemplate(job).getSpec().getPriorityClassName())
        .isEqualTo("launcher-class");
    job.getSpec().mpiReplicaSpecs.get("Launcher").template.getSpec().setPriorityClassName(null);
    assertThat(mpi.priorityTemplate(job).getSpec().getPriorityClassName())
        .isEqualTo("worker-class");
    job.getSpec().runPolicy = new KubeflowJob.RunPolicy();
    job.getSpec().runPolicy.setOther("schedulingPolicy", Map.of("priorityClass", "policy-class"));
    assertThat(mpi.priorityTemplate(job).getSpec().getPriorityClassName())
        .isEqualTo("policy-class");
    assertThat(pytorch.priorityTemplate(pytorchJob(1))).isNull();
  }

  @Test
  void suspendedThroughTheRunPolicyKeepingTheRestOfIt() {
    PyTorchJob job = pytorchJob(2);
    assertThat(pytorch.isSuspended(job)).isTrue();
    PyTorchJob started = pytorch.admitted(job, admitted("h100", "master", "worker"), FLAVORS);
    assertThat(pytorch.isSuspended(started)).isFalse();
    assertThat(started.getSpec().runPolicy.getOther())
        .containsEntry("cleanPodPolicy", "Running")
        .containsEntry("backoffLimit", 3);
    assertThat(pytorch.isSuspended(pytorch.suspended(started))).isTrue();
    // A job written without a runPolicy gets one to suspend it.
    MPIJob mpiJob = mpiJob();
    assertThat(mpi.isSuspended(mpiJob)).isFalse();
    assertThat(mpi.suspended(mpiJob).getSpec().runPolicy.suspend).isTrue();
  }

  @Test
  void eachReplicaTemplateGetsItsPodSetsFlavorAndEvictionPutsTheWrittenOnesBack() {
    PyTorchJob job = pytorchJob(2);
    Workload wl = admitted("h100", "master", "worker");
    wl.setSpec(pytorch.newWorkload(job, new PriorityResolver(null)).getSpec());
    PyTorchJob started = pytorch.admitted(job, wl, FLAVORS);
    var worker = started.getSpec().pytorchReplicaSpecs.get("Worker").template.getSpec();
    var master = started.getSpec().pytorchReplicaSpecs.get("Master").template.getSpec();
    assertThat(worker.getNodeSelector()).containsEntry("pool", "h100").containsEntry("disk", "ssd");
    assertThat(master.getNodeSelector()).containsEntry("pool", "h100");
    assertThat(worker.getTolerations()).containsExactly(SPOT);
    // Fields Berth does not model are kept.
    assertThat(started.getSpec().getOther()).containsEntry("nprocPerNode", "8");
    assertThat(started.getSpec().pytorchReplicaSpecs.get("Worker").getOther())
        .containsEntry("restartPolicy", "OnFailure");

    PyTorchJob restored = pytorch.restored(started, wl);
    assertThat(pytorch.isSuspended(restored)).isTrue();
    assertThat(restored.getSpec().pytorchReplicaSpecs.get("Worker").template.getSpec())
        .satisfies(
            spec -> {
              assertThat(spec.getNodeSelector()).containsExactly(Map.entry("disk", "ssd"));
              assertThat(spec.getTolerations()).isNullOrEmpty();
            });
    assertThat(
            restored
                .getSpec()
                .pytorchReplicaSpecs
                .get("Master")
                .template
                .getSpec()
                .getNodeSelector())
        .isNullOrEmpty();
  }

  private static PyTorchJob withStatus(PyTorchJob job, String statusYaml) {
    job.setStatus(Serialization.unmarshal(statusYaml, KubeflowJob.Status.class));
    return job;
  }

  @Test
  void finishedFromTheTrainingOperatorsConditions() {
    assertThat(pytorch.finished(pytorchJob(1))).isEmpty();
    PyTorchJob running =
        withStatus(
            pytorchJob(1),
            "conditions: [{type: Created, status: 'True'}, {type: Running, status: 'True'}]");
    assertThat(pytorch.finished(running)).isEmpty();
    PyTorchJob succeeded =
        withStatus(
            pytorchJob(1),
            """
            conditions:
            - {type: Running, status: 'False'}
            - {type: Succeeded, status: 'True', message: PyTorchJob team/ddp successfully completed.}
            """);
    assertThat(pytorch.finished(succeeded))
        .contains(new Integration.Finish(true, "PyTorchJob team/ddp successfully completed."));
    PyTorchJob failed = withStatus(pytorchJob(1), "conditions: [{type: Failed, status: 'True'}]");
    assertThat(pytorch.finished(failed))
        .contains(new Integration.Finish(false, "PyTorchJob failed"));
  }

  @Test
  void allPodsAreReadyOnceTheJobRunsAsKueueReadsIt() {
    assertThat(pytorch.readyPods(pytorchJob(3))).isZero();
    PyTorchJob created = withStatus(pytorchJob(3), "conditions: [{type: Created, status: 'True'}]");
    assertThat(pytorch.readyPods(created)).isZero();
    PyTorchJob running = withStatus(pytorchJob(3), "conditions: [{type: Running, status: 'True'}]");
    assertThat(pytorch.readyPods(running)).isEqualTo(4);
  }

  private static Pod pod(String phase) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("ddp-worker-0")
        .endMetadata()
        .withNewStatus()
        .withPhase(phase)
        .endStatus()
        .build();
  }

  @Test
  void podsStillStoppingHoldTheQuotaAfterTheStatusSaysNoneIsActive() {
    PyTorchJob job =
        withStatus(
            pytorchJob(1),
            "replicaStatuses: {Master: {active: 1}, Worker: {active: 2, succeeded: 1}}");
    assertThat(pytorch.activePods(job)).isEqualTo(3);
    assertThat(pytorch.hasPodsToCount(job, List.of())).isTrue();
    // Suspended: the training operator zeroes the counts as it deletes the pods.
    PyTorchJob suspended =
        withStatus(pytorchJob(1), "replicaStatuses: {Master: {active: 0}, Worker: {active: 0}}");
    assertThat(pytorch.activePods(suspended)).isZero();
    assertThat(pytorch.hasPodsToCount(suspended, List.of(pod("Running")))).isTrue();
    assertThat(pytorch.hasPodsToCount(suspended, List.of(pod("Pending")))).isTrue();
    assertThat(pytorch.hasPodsToCount(suspended, List.of(pod("Succeeded"), pod("Failed"))))
        .isFalse();
    assertThat(pytorch.hasPodsToCount(suspended, List.of())).isFalse();
    assertThat(pytorch.podLabels(job))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "training.kubeflow.org/job-name", "ddp",
                "training.kubeflow.org/operator-name", "pytorchjob-controller"));
    assertThat(mpi.podLabels(mpiJob()))
        .containsEntry("training.kubeflow.org/operator-name", "mpijob-controller");
  }

  @Test
  void ownerStatusIsTheTrainingOperatorsLatestConditionThatHolds() {
    assertThat(pytorch.ownerStatus(pytorchJob(1))).isEqualTo("Suspended");
    PyTorchJob running =
        withStatus(
            pytorchJob(1),
            "conditions: [{type: Created, status: 'True', lastTransitionTime:"
                + " '2026-12-01T10:00:00Z'}, {type: Suspended, status: 'False',"
                + " lastTransitionTime: '2026-12-01T10:02:00Z'}, {type: Running, status: 'True',"
                + " lastTransitionTime: '2026-12-01T10:01:00Z'}]");
    assertThat(pytorch.ownerStatus(running)).isEqualTo("Running");
  }
}
