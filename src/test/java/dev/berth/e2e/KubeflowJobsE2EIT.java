package dev.berth.e2e;

import static dev.berth.e2e.Denials.assertDenied;
import static dev.berth.e2e.Denials.patch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.e2e.plane.ControlPlane;
import dev.berth.e2e.plane.SimNode;
import dev.berth.operator.BerthOperator;
import dev.berth.operator.integration.kubeflow.KubeflowJob;
import dev.berth.operator.integration.kubeflow.KubeflowJobAdapter;
import dev.berth.operator.integration.kubeflow.MPIJob;
import dev.berth.operator.integration.kubeflow.PyTorchJob;
import dev.berth.webhook.WebhookRuntime;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Kubeflow training operator's PyTorchJob and MPIJob on a whole control plane ({@link
 * ControlPlane}: kube-scheduler, KWOK's GPU nodes, kube-controller-manager) with the real training
 * operator (scripts/training-operator-binary.sh) and Berth's chart webhooks for the two kinds: a
 * job is created suspended, gets one Workload with a podSet per replica type, and is started by the
 * operator once admitted, its flavor in each replica's template; the training operator then makes
 * its pods, which KWOK runs and ends, and marks the job Succeeded, which finishes the Workload. A
 * preempted job is suspended, the training operator deletes its pods, and the preemptor is bound
 * only after they are all gone. A team member (edit and the chart's roles) cannot get around the
 * queue.
 */
class KubeflowJobsE2EIT {
  private static final String FRAMEWORKS = "batch/job,kubeflow.org/pytorchjob,kubeflow.org/mpijob";
  private static final String MEMBER = "kf-member";
  private static final String TEAM = "kf-team";
  private static final String REPLICA_TYPE = "training.kubeflow.org/replica-type";

  private static ControlPlane plane;
  private static OnPlane on;
  private static WebhookRuntime webhooks;
  private static BerthOperator operator;
  private static KubernetesClient member;

  @BeforeAll
  static void setUp() throws Exception {
    plane = ControlPlane.start("kubeflow", ControlPlane.gpuFleet());
    plane.startTrainingOperator();
    on = new OnPlane(plane);
    KubernetesClient admin = plane.client();
    Namespaces.ensure(admin, "berth-system");
    webhooks = ServedWebhooks.start(admin, "integrations.frameworks={" + FRAMEWORKS + "}");
    admin.resource(on.flavor("kf-h100", SimNode.H100, "on-demand", List.of())).create();
    admin.resource(on.flavor("kf-a100", SimNode.A100, "on-demand", List.of())).create();
    Toleration spot = new Toleration("NoSchedule", SimNode.LIFECYCLE, "Equal", null, "spot");
    admin.resource(on.flavor("kf-spot", SimNode.H100, "spot", List.of(spot))).create();
    on.priorityClass("kf-low", 10);
    on.priorityClass("kf-high", 1000);
    operator =
        RunningOperator.startNew(
            plane.kubeconfig(),
            "integrations:\n  frameworks: [" + FRAMEWORKS.replace(",", ", ") + "]\n");
    Namespaces.ensure(admin, "kf-probe");
    // The API server calls newly registered webhooks only after a moment: a labelled job is
    // stored suspended once they are.
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                Boolean.TRUE.equals(
                    admin
                        .resource(pytorchJob("kf-probe", "probe", "", 1, 0, Map.of(), ""))
                        .dryRun()
                        .create()
                        .getSpec()
                        .runPolicy
                        .suspend));
    Config config = Config.fromKubeconfig(plane.kubeconfig());
    config.setImpersonateUsername(MEMBER);
    config.setImpersonateGroups("system:authenticated");
    member = new KubernetesClientBuilder().withConfig(config).build();
  }

  @AfterAll
  static void tearDown() {
    if (member != null) {
      member.close();
    }
    if (operator != null) {
      operator.close();
    }
    if (webhooks != null) {
      webhooks.close();
    }
    if (plane != null) {
      plane.close();
    }
  }

  // ---- the jobs --------------------------------------------------------------------------------

  /**
   * One replica type: {@code replicas} pods of {@code gpus} GPUs, KWOK ending them as annotated.
   */
  private static String replica(
      String type,
      String container,
      int replicas,
      int gpus,
      Map<String, String> annotations,
      String podLabels) {
    return """
            %s:
              replicas: %d
              restartPolicy: Never
              template:
                metadata:
                  labels: {%s}
                  annotations: %s
                spec:
                  containers:
                  - name: %s
                    image: trainer:1
                    resources: {requests: {nvidia.com/gpu: "%d"}, limits: {nvidia.com/gpu: "%d"}}
        """
        .formatted(
            type, replicas, podLabels, Serialization.asJson(annotations), container, gpus, gpus);
  }

  /**
   * A PyTorchJob in LocalQueue lq: a master and {@code workers} workers of {@code gpus} GPUs each,
   * with {@code labels} on the job and {@code podLabels} on its pods.
   */
  private static PyTorchJob pytorchJob(
      String ns,
      String name,
      String labels,
      int gpus,
      int workers,
      Map<String, String> annotations,
      String podLabels) {
    String yaml =
        """
        apiVersion: kubeflow.org/v1
        kind: PyTorchJob
        metadata:
          name: %s
          namespace: %s
          labels: {berth.dev/queue-name: lq%s}
        spec:
          pytorchReplicaSpecs:
        %s%s"""
            .formatted(
                name,
                ns,
                labels,
                replica("Master", "pytorch", 1, gpus, annotations, podLabels),
                workers == 0
                    ? ""
                    : replica("Worker", "pytorch", workers, gpus, annotations, podLabels));
    return Serialization.unmarshal(yaml, PyTorchJob.class);
  }

  /** An MPIJob in LocalQueue lq: a launcher without GPUs that runs for {@code launcherRunsFor}. */
  private static MPIJob mpiJob(
      String ns, String name, int workers, int gpus, String launcherRunsFor) {
    String yaml =
        """
        apiVersion: kubeflow.org/v1
        kind: MPIJob
        metadata:
          name: %s
          namespace: %s
          labels: {berth.dev/queue-name: lq}
        spec:
          slotsPerWorker: 1
          mpiReplicaSpecs:
        %s%s"""
            .formatted(
                name,
                ns,
                replica("Launcher", "mpi", 1, 0, Map.of(ControlPlane.RUN_FOR, launcherRunsFor), ""),
                replica("Worker", "mpi", workers, gpus, Map.of(), ""));
    return Serialization.unmarshal(yaml, MPIJob.class);
  }

  /** The pods the training operator made for a job (its job-name label). */
  private static List<Pod> podsOf(Scenario s, String job) {
    return s.client
        .pods()
        .inNamespace(s.namespace)
        .withLabel(KubeflowJobAdapter.JOB_NAME_LABEL, job)
        .list()
        .getItems();
  }

  private static boolean allBoundAndRunning(Scenario s, String job, int count) {
    return OnPlane.allBoundAndRunning(podsOf(s, job), count);
  }

  private static boolean quotaReserved(Scenario s, String job) {
    return s.condition(job, "QuotaReserved").map(c -> "True".equals(c.status)).orElse(false);
  }

  private static PyTorchJob storedPyTorchJob(Scenario s, String name) {
    return s.client.resources(PyTorchJob.class).inNamespace(s.namespace).withName(name).get();
  }

  /**
   * samples/kubeflow's PyTorchJob in {@code s}'s LocalQueue lq (the samples' LocalQueue and
   * WorkloadPriorityClass are not on this plane), its pods run by KWOK for {@code runFor}.
   */
  private static PyTorchJob sample(Scenario s, String runFor) throws IOException {
    Path file =
        Path.of(System.getProperty("berth.repo", ".."))
            .resolve("samples/kubeflow/pytorchjob-llm-ddp.yaml");
    PyTorchJob job = Serialization.unmarshal(Files.readString(file), PyTorchJob.class);
    job.getMetadata().setNamespace(s.namespace);
    job.getMetadata().setLabels(Map.of(Berth.QUEUE_NAME_LABEL, "lq"));
    for (KubeflowJob.ReplicaSpec replica : job.getSpec().pytorchReplicaSpecs.values()) {
      replica.template.setMetadata(new ObjectMeta());
      replica.template.getMetadata().setAnnotations(Map.of(ControlPlane.RUN_FOR, runFor));
    }
    return job;
  }

  // ---- admitted whole, run by the training operator, finished ---------------------------------

  @Test
  void aPyTorchJobThatFitsOnlyWholeWaitsWhileAnMPIJobRunsThenRunsAndFinishes() throws IOException {
    Scenario s = on.queue("kf-gang", "kf-h100", 16);
    on.awaitNodesFree(s, "h100");
    // An MPIJob of one 8-GPU worker: admitted and started at once, its launcher ends after 8 s.
    s.client.resource(mpiJob(s.namespace, "mpi", 1, 8, "8s")).create();
    on.awaitOrDescribe(
        s, "the MPIJob's launcher and worker Running", () -> allBoundAndRunning(s, "mpi", 2));
    assertThat(s.workload("mpi").orElseThrow().getSpec().podSets)
        .extracting(ps -> ps.name + "=" + ps.count)
        .containsExactly("launcher=1", "worker=1");
    // The worker runs on the flavor's nodes; the launcher asks for no GPU, so its podSet gets no
    // flavor (as in Kueue) and it may run anywhere.
    assertThat(podsOf(s, "mpi"))
        .filteredOn(p -> "worker".equals(p.getMetadata().getLabels().get(REPLICA_TYPE)))
        .singleElement()
        .satisfies(
            p -> assertThat(plane.nodeLabels(p)).containsEntry(SimNode.GPU_PRODUCT, SimNode.H100));

    // samples/kubeflow's PyTorchJob, a master and a worker of 8 GPUs: 16, and 8 are free.
    // Nothing of it runs until all fit.
    s.client.resource(sample(s, "4s")).create();
    on.awaitOrDescribe(
        s,
        "llm-ddp's Workload pending without quota",
        () ->
            s.condition("llm-ddp", "QuotaReserved")
                .map(c -> "False".equals(c.status))
                .orElse(false));
    assertThat(s.workload("llm-ddp").orElseThrow().getSpec().podSets)
        .extracting(ps -> ps.name + "=" + ps.count)
        .containsExactly("master=1", "worker=1");
    assertThat(storedPyTorchJob(s, "llm-ddp").getSpec().runPolicy.suspend).isTrue();
    assertThat(podsOf(s, "llm-ddp")).isEmpty();

    // The launcher ends, the MPIJob Succeeds (its worker deleted: cleanPodPolicy Running), its
    // quota goes back, and the PyTorchJob runs whole on the H100 flavor, then finishes.
    on.awaitFinished(s, "mpi");
    on.awaitOrDescribe(
        s, "llm-ddp's master and worker Running", () -> allBoundAndRunning(s, "llm-ddp", 2));
    PyTorchJob ddp = storedPyTorchJob(s, "llm-ddp");
    assertThat(ddp.getSpec().pytorchReplicaSpecs.values())
        .allSatisfy(
            r ->
                assertThat(r.template.getSpec().getNodeSelector())
                    .containsEntry(SimNode.GPU_PRODUCT, SimNode.H100));
    on.awaitFinished(s, "llm-ddp");
    assertThat(s.condition("llm-ddp", "Finished").orElseThrow().reason).isEqualTo("Succeeded");
  }

  // ---- preemption ------------------------------------------------------------------------------

  @Test
  void aPreemptedPyTorchJobLosesEveryPodBeforeThePreemptorIsBound() {
    ClusterQueuePreemption preemption = new ClusterQueuePreemption();
    preemption.withinClusterQueue = ClusterQueuePreemption.WithinClusterQueue.LowerPriority;
    Scenario s = on.queue("kf-preempt", "kf-a100", 16, preemption);
    on.awaitNodesFree(s, "a100");
    s.client
        .resource(
            pytorchJob(
                s.namespace,
                "low",
                ", " + Berth.PRIORITY_CLASS_LABEL + ": kf-low",
                8,
                1,
                Map.of(),
                "app: victim"))
        .create();
    on.awaitOrDescribe(s, "low's master and worker Running", () -> allBoundAndRunning(s, "low", 2));

    try (OnPlane.StopThenBind order =
        new OnPlane.StopThenBind(
            s.client, s.namespace, "app", "victim", 2, KubeflowJobAdapter.JOB_NAME_LABEL, "high")) {
      s.client
          .resource(
              pytorchJob(
                  s.namespace,
                  "high",
                  ", " + Berth.PRIORITY_CLASS_LABEL + ": kf-high",
                  8,
                  1,
                  Map.of(ControlPlane.RUN_FOR, "6s"),
                  ""))
          .create();
      on.awaitOrDescribe(
          s, "high's master and worker Running", () -> allBoundAndRunning(s, "high", 2));
      // While high runs: the victim is suspended with the templates it was written with, and
      // its Workload requeued without quota.
      PyTorchJob low = storedPyTorchJob(s, "low");
      assertThat(low.getSpec().runPolicy.suspend).isTrue();
      assertThat(low.getSpec().pytorchReplicaSpecs.values())
          .allSatisfy(r -> assertThat(r.template.getSpec().getNodeSelector()).isNullOrEmpty());
      assertThat(podsOf(s, "low")).isEmpty();
      assertThat(quotaReserved(s, "low")).isFalse();
      await().atMost(Duration.ofSeconds(10)).until(() -> order.order.size() == 2);
      assertThat(order.order).containsExactly("victim stopped", "preemptor bound");
    }
    on.awaitFinished(s, "high");
  }

  // ---- a team member cannot get around the queue -----------------------------------------------

  /**
   * Namespace kf-team, selected by a ClusterQueue of 8 spot GPUs, with LocalQueues lq and other;
   * the member bound to edit, the chart's roles and the training operator's own (a stand-in for its
   * installation's, which grants its users its jobs).
   */
  private static Scenario team() {
    KubernetesClient admin = plane.client();
    Namespaces.ensure(admin, TEAM);
    Scenario s = on.queue(TEAM, "kf-spot", 8);
    s.client.resource(ScenarioObjects.localQueue(TEAM, "other", TEAM)).create();
    TeamMemberRoles.bind(admin, MEMBER, TEAM);
    TeamMemberRoles.bindEditorStandIn(
        admin,
        MEMBER,
        TEAM,
        "kubeflow-jobs-editor-stand-in",
        List.of("kubeflow.org"),
        List.of("pytorchjobs", "mpijobs"));
    return s;
  }

  /** A pod claiming the job as its controller, as the training operator would make it. */
  private static Pod podOf(PyTorchJob job, String type, int gpus) {
    Quantity q = new Quantity(Integer.toString(gpus));
    return new PodBuilder()
        .withNewMetadata()
        .withName(job.getMetadata().getName() + "-forged-" + type)
        .withNamespace(job.getMetadata().getNamespace())
        .addToLabels(REPLICA_TYPE, type)
        .addNewOwnerReference()
        .withApiVersion("kubeflow.org/v1")
        .withKind("PyTorchJob")
        .withName(job.getMetadata().getName())
        .withUid(job.getMetadata().getUid())
        .withController(true)
        .endOwnerReference()
        .endMetadata()
        .withNewSpec()
        .withRestartPolicy("Never")
        .addNewContainer()
        .withName("pytorch")
        .withImage("trainer:1")
        .withNewResources()
        .addToRequests(SimNode.GPU, q)
        .addToLimits(SimNode.GPU, q)
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  @Test
  void theWaysAroundTheQueueAreDeniedToATeamMember() {
    Scenario s = team();
    String queueLabel = "metadata.labels[" + Berth.QUEUE_NAME_LABEL + "]";
    await("the member's roles and the webhook's view of the namespace")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertDenied(
                    () ->
                        member
                            .resource(
                                withoutQueue(
                                    pytorchJob(TEAM, "unlabelled", "", 1, 0, Map.of(), "")))
                            .dryRun()
                            .create(),
                    queueLabel));
    // No queue: refused, naming the label; the same for an MPIJob.
    MPIJob unlabelledMpi = mpiJob(TEAM, "unlabelled-mpi", 1, 1, "1s");
    unlabelledMpi.getMetadata().getLabels().remove(Berth.QUEUE_NAME_LABEL);
    assertDenied(() -> member.resource(unlabelledMpi).create(), queueLabel);
    // Pods left running when the job ends would hold GPUs without quota.
    MPIJob keepsPods = mpiJob(TEAM, "keeps-pods", 1, 1, "1s");
    keepsPods.getSpec().runPolicy = new KubeflowJob.RunPolicy();
    keepsPods.getSpec().runPolicy.setOther("cleanPodPolicy", "None");
    assertDenied(() -> member.resource(keepsPods).create(), "spec.runPolicy.cleanPodPolicy");

    // Created running: stored suspended all the same; unsuspending it is the operator's.
    PyTorchJob waiting = pytorchJob(TEAM, "waiting", "", 8, 1, Map.of(), "");
    waiting.getSpec().runPolicy = new KubeflowJob.RunPolicy();
    waiting.getSpec().runPolicy.suspend = false;
    PyTorchJob stored = member.resource(waiting).create();
    assertThat(stored.getSpec().runPolicy.suspend).isTrue();
    assertThat(stored.getSpec().runPolicy.getOther()).containsEntry("cleanPodPolicy", "Running");
    assertDenied(
        () -> patch(member, stored, "{\"spec\": {\"runPolicy\": {\"suspend\": false}}}"),
        "spec.runPolicy.suspend");
    // Its queue label cannot be taken away while it waits (it may move to another queue).
    assertDenied(
        () ->
            patch(
                member,
                stored,
                "{\"metadata\": {\"labels\": {\"" + Berth.QUEUE_NAME_LABEL + "\": null}}}"),
        queueLabel);
    // A pod claiming the suspended job as its controller is refused.
    assertDenied(
        () -> member.resource(podOf(stored, "master", 8)).create(),
        "metadata.ownerReferences[0]",
        "suspended");
    member.resource(stored).delete();

    // A running one (2 GPUs, admitted by Berth, its pods made by the training operator) cannot
    // grow, nor ask for more in a template, nor be joined by a pod asking more than its template.
    PyTorchJob small = member.resource(pytorchJob(TEAM, "small", "", 1, 1, Map.of(), "")).create();
    on.awaitOrDescribe(
        s, "small's master and worker Running", () -> allBoundAndRunning(s, "small", 2));
    PyTorchJob running = storedPyTorchJob(s, "small");
    assertDenied(
        () ->
            patch(
                member,
                running,
                "{\"spec\": {\"pytorchReplicaSpecs\": {\"Worker\": {\"replicas\": 4}}}}"),
        "spec.pytorchReplicaSpecs[Worker].replicas",
        "cannot change from 1 to 4");
    assertDenied(
        () ->
            member
                .resources(PyTorchJob.class)
                .inNamespace(TEAM)
                .withName("small")
                .edit(
                    j -> {
                      j.getSpec()
                          .pytorchReplicaSpecs
                          .get("Master")
                          .template
                          .getSpec()
                          .getContainers()
                          .get(0)
                          .getResources()
                          .getRequests()
                          .put(SimNode.GPU, new Quantity("8"));
                      return j;
                    }),
        "spec.pytorchReplicaSpecs[Master].template.spec.containers[0].resources");
    assertDenied(
        () -> member.resource(podOf(running, "worker", 8)).create(),
        "metadata.ownerReferences[0]",
        "asks for 8 nvidia.com/gpu");
    assertThat(podsOf(s, "small")).hasSize(2);
    assertThat(storedPyTorchJob(s, "small").getSpec().pytorchReplicaSpecs.get("Worker").replicas)
        .isEqualTo(1);
    member.resource(running).delete();
  }

  private static <T extends HasMetadata> T withoutQueue(T job) {
    job.getMetadata().getLabels().remove(Berth.QUEUE_NAME_LABEL);
    return job;
  }
}
