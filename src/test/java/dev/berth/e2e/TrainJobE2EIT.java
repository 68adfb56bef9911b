package dev.berth.e2e;

import static dev.berth.e2e.Denials.assertDenied;
import static dev.berth.e2e.Denials.patch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.api.v1beta1.Workload;
import dev.berth.e2e.plane.ControlPlane;
import dev.berth.e2e.plane.SimNode;
import dev.berth.e2e.plane.ThirdParty;
import dev.berth.local.KubeflowTrainer;
import dev.berth.operator.BerthOperator;
import dev.berth.operator.integration.trainjob.ClusterTrainingRuntime;
import dev.berth.operator.integration.trainjob.TrainJob;
import dev.berth.operator.integration.trainjob.TrainJobAdapter;
import dev.berth.webhook.WebhookRuntime;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
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
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Kubeflow Trainer's TrainJob on a whole control plane ({@link ControlPlane}: kube-scheduler,
 * KWOK's GPU nodes, kube-controller-manager, the real JobSet controller) with the real Trainer
 * v2.0.0 (scripts/trainer-binary.sh) and Berth's chart webhooks for Jobs, JobSets and TrainJobs: a
 * TrainJob is created suspended and gets one Workload whose pod sets are its runtime's, resolved
 * with its overrides; once admitted the operator resumes it with the flavor in a pod spec override,
 * and the Trainer's JobSet, which is not queued a second time, runs its pods. A preempted TrainJob
 * is suspended, every pod of it stops, and the preemptor is bound only after. A team member (edit
 * and the chart's roles) cannot get around the queue. Skipped, loudly, only without the third-party
 * sources (the Trainer module needs the JobSet v0.8.2 API from there).
 */
class TrainJobE2EIT {
  private static final String FRAMEWORKS =
      "batch/job,jobset.x-k8s.io/jobset,trainer.kubeflow.org/trainjob";
  private static final String MEMBER = "tj-member";
  private static final String TEAM = "tj-team";

  /** The policy that lets only the Trainer create or start JobSets in a namespace. */
  private static final String TRAINER_ONLY = "tj-trainer-writes-jobsets";

  private static final String JOBSET_NAME = TrainJobAdapter.JOBSET_NAME_LABEL;

  private static ControlPlane plane;
  private static OnPlane on;
  private static WebhookRuntime webhooks;
  private static BerthOperator operator;
  private static KubernetesClient member;

  @BeforeAll
  static void setUp() throws Exception {
    if (!ThirdParty.present()) {
      skip();
    }
    plane = ControlPlane.startWithTrainer("trainjobs", ControlPlane.gpuFleet()).orElse(null);
    if (plane == null) {
      skip();
    }
    on = new OnPlane(plane);
    KubernetesClient admin = plane.client();
    Namespaces.ensure(admin, "berth-system");
    webhooks = ServedWebhooks.start(admin, "integrations.frameworks={" + FRAMEWORKS + "}");
    admin.resource(on.flavor("tj-h100", SimNode.H100, "on-demand", List.of())).create();
    admin.resource(on.flavor("tj-a100", SimNode.A100, "on-demand", List.of())).create();
    Toleration spot = new Toleration("NoSchedule", SimNode.LIFECYCLE, "Equal", null, "spot");
    admin.resource(on.flavor("tj-spot", SimNode.H100, "spot", List.of(spot))).create();
    on.priorityClass("tj-low", 10);
    on.priorityClass("tj-high", 1000);
    // Two runtimes of torch-distributed's shape: pods KWOK ends after 5 s, and pods that run until
    // they are stopped.
    admin.resource(runtime("tj-torch-5s", "5s")).serverSideApply();
    admin.resource(runtime("tj-torch", null)).serverSideApply();
    operator =
        RunningOperator.startNew(
            plane.kubeconfig(),
            "integrations:\n  frameworks: [" + FRAMEWORKS.replace(",", ", ") + "]\n");
    Namespaces.ensure(admin, "tj-probe");
    // The API server calls newly registered webhooks only after a moment: a labelled TrainJob is
    // stored suspended once they are.
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                Boolean.TRUE.equals(
                    admin
                        .resource(trainJob("tj-probe", "probe", "tj-torch", 1, 1, ""))
                        .dryRun()
                        .create()
                        .getSpec()
                        .suspend));
    Config config = Config.fromKubeconfig(plane.kubeconfig());
    config.setImpersonateUsername(MEMBER);
    config.setImpersonateGroups("system:authenticated");
    member = new KubernetesClientBuilder().withConfig(config).build();
  }

  private static void skip() {
    String why =
        "SKIPPED: no JobSet v0.8.2 API source at "
            + ControlPlane.trainerJobSetTarball()
            + ": TrainJobE2EIT needs the real Kubeflow Trainer v2.0.0, which"
            + " scripts/trainer-binary.sh builds with it (and the real JobSet controller)";
    System.out.println("[berth-test] " + "*".repeat(90));
    System.out.println("[berth-test] " + why);
    System.out.println("[berth-test] " + "*".repeat(90));
    Assumptions.abort(why);
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

  // ---- the objects -----------------------------------------------------------------------------

  /**
   * A ClusterTrainingRuntime of torch-distributed's shape (one trainer replicatedJob {@code node},
   * one node by default), its pods ended by KWOK after {@code runFor} (never when null).
   */
  private static GenericKubernetesResource runtime(String name, String runFor) {
    return Serialization.unmarshal(
        """
        apiVersion: trainer.kubeflow.org/v1alpha1
        kind: ClusterTrainingRuntime
        metadata: {name: %s}
        spec:
          mlPolicy:
            numNodes: 1
            torch: {numProcPerNode: auto}
          template:
            spec:
              replicatedJobs:
              - name: node
                template:
                  metadata:
                    labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
                  spec:
                    template:
                      metadata:
                        annotations: %s
                      spec:
                        containers:
                        - name: node
                          image: pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime
                          command: [torchrun, train.py]
        """
            .formatted(
                name,
                Serialization.asJson(
                    runFor == null ? Map.of() : Map.of(ControlPlane.RUN_FOR, runFor))),
        GenericKubernetesResource.class);
  }

  /**
   * A TrainJob in LocalQueue lq of {@code nodes} nodes of {@code gpus} GPUs each on {@code
   * runtime}, with {@code labels} besides the queue's.
   */
  private static TrainJob trainJob(
      String ns, String name, String runtime, int nodes, int gpus, String labels) {
    return Serialization.unmarshal(
        """
        apiVersion: trainer.kubeflow.org/v1alpha1
        kind: TrainJob
        metadata:
          name: %s
          namespace: %s
          labels: {berth.dev/queue-name: lq%s}
        spec:
          runtimeRef: {name: %s}
          trainer:
            numNodes: %d
            resourcesPerNode:
              requests: {nvidia.com/gpu: "%d"}
              limits: {nvidia.com/gpu: "%d"}
        """
            .formatted(name, ns, labels, runtime, nodes, gpus, gpus),
        TrainJob.class);
  }

  /** The pods of a TrainJob: its JobSet's, named after it. */
  private static List<Pod> podsOf(Scenario s, String trainJob) {
    return s.client
        .pods()
        .inNamespace(s.namespace)
        .withLabel(JOBSET_NAME, trainJob)
        .list()
        .getItems();
  }

  private static boolean allBoundAndRunning(Scenario s, String trainJob, int count) {
    return OnPlane.allBoundAndRunning(podsOf(s, trainJob), count);
  }

  private static TrainJob stored(Scenario s, String name) {
    return s.client.resources(TrainJob.class).inNamespace(s.namespace).withName(name).get();
  }

  private static boolean quotaReserved(Scenario s, String owner) {
    return s.condition(owner, "QuotaReserved").map(c -> "True".equals(c.status)).orElse(false);
  }

  /**
   * samples/kubeflow's TrainJob, renamed llm, in {@code s}'s LocalQueue lq (the samples' LocalQueue
   * and WorkloadPriorityClass are not on this plane), asking only the GPUs this plane's queues
   * cover; its ClusterTrainingRuntime applied with its pods run by KWOK for {@code runFor}.
   */
  private static TrainJob sample(Scenario s, String runFor) throws IOException {
    Path samples = Path.of(System.getProperty("berth.repo", "..")).resolve("samples/kubeflow");
    ClusterTrainingRuntime runtime =
        Serialization.unmarshal(
            Files.readString(samples.resolve("clustertrainingruntime-torch-llm.yaml")),
            ClusterTrainingRuntime.class);
    PodTemplateSpec pods =
        runtime.getSpec().template.spec.replicatedJobs.get(0).template.getSpec().getTemplate();
    pods.setMetadata(new ObjectMeta());
    pods.getMetadata().setAnnotations(Map.of(ControlPlane.RUN_FOR, runFor));
    plane.client().resource(runtime).serverSideApply();
    TrainJob job =
        Serialization.unmarshal(
            Files.readString(samples.resolve("trainjob-llm-finetune.yaml")), TrainJob.class);
    job.getMetadata().setName("llm");
    job.getMetadata().setNamespace(s.namespace);
    job.getMetadata().setLabels(Map.of(Berth.QUEUE_NAME_LABEL, "lq"));
    Map<String, Quantity> gpus = Map.of(SimNode.GPU, new Quantity("8"));
    job.getSpec().trainer.resourcesPerNode = new ResourceRequirements(null, gpus, gpus);
    return job;
  }

  // ---- admitted whole, run by the Trainer and the JobSet controller, finished ------------------

  @Test
  void aTrainJobThatFitsOnlyWholeWaitsThenRunsOnItsFlavorAndFinishes() throws IOException {
    Scenario s = on.queue("tj-gang", "tj-h100", 16);
    on.awaitNodesFree(s, "h100");
    // A Job of one 8-GPU pod that ends after 10 s: admitted and started at once.
    s.client.resource(OnPlane.gpuJob(s, "first", 1, ControlPlane.RUN_FOR, "10s")).create();
    on.runningPods(s, "first", 1);

    // From here only the Trainer's service account may create or start a JobSet in the
    // namespace: the admin (also the operator's identity here) is refused, so the JobSet the
    // Trainer makes and starts below reached the admission chain, Berth's webhooks included, as
    // the Trainer's own user.
    KubernetesClient admin = plane.client();
    HasMetadata policy = admin.resource(trainerWritesJobSets(s.namespace)).create();
    HasMetadata binding = admin.resource(AdmissionPolicies.binding(TRAINER_ONLY)).create();
    await("the policy in force: the admin cannot create a JobSet in " + s.namespace)
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThatThrownBy(
                        () -> admin.resource(adminsJobSet(s.namespace)).dryRun().create())
                    .hasMessageContaining(TRAINER_ONLY));

    // samples/kubeflow's TrainJob: two nodes of 8 GPUs (its numNodes over its runtime's 1): 16,
    // and 8 are free.
    s.client.resource(sample(s, "5s")).create();
    on.awaitOrDescribe(
        s,
        "llm's Workload pending without quota",
        () -> s.condition("llm", "QuotaReserved").map(c -> "False".equals(c.status)).orElse(false));
    Workload workload = s.workload("llm").orElseThrow();
    assertThat(workload.getSpec().podSets)
        .singleElement()
        .satisfies(
            ps -> {
              assertThat(ps.name + "=" + ps.count).isEqualTo("node=2");
              assertThat(ps.template.getSpec().getContainers().get(0).getResources().getRequests())
                  .containsEntry(SimNode.GPU, new Quantity("8"));
            });
    assertThat(stored(s, "llm").getSpec().suspend).isTrue();
    assertThat(podsOf(s, "llm")).isEmpty();

    // The Job ends, its quota goes back, and the TrainJob runs whole on the H100 flavor.
    on.awaitFinished(s, "first");
    on.awaitOrDescribe(s, "llm's 2 pods Running", () -> allBoundAndRunning(s, "llm", 2));
    assertThat(podsOf(s, "llm"))
        .allSatisfy(
            p -> assertThat(plane.nodeLabels(p)).containsEntry(SimNode.GPU_PRODUCT, SimNode.H100));
    // The flavor went in through a pod spec override of its own; the JobSet the Trainer made of
    // it is not queued a second time: the namespace's Workloads are the Job's and the TrainJob's.
    assertThat(stored(s, "llm").getSpec().podSpecOverrides)
        .singleElement()
        .satisfies(
            o -> assertThat(o.nodeSelector).containsEntry(SimNode.GPU_PRODUCT, SimNode.H100));
    assertThat(s.client.resources(Workload.class).inNamespace(s.namespace).list().getItems())
        .extracting(w -> w.getMetadata().getOwnerReferences().get(0).getKind())
        .containsExactlyInAnyOrder("Job", "TrainJob");
    Boolean suspended =
        s.client
            .genericKubernetesResources("jobset.x-k8s.io/v1alpha2", "JobSet")
            .inNamespace(s.namespace)
            .withName("llm")
            .get()
            .get("spec", "suspend");
    assertThat(suspended)
        .as("the JobSet the Trainer created and started as %s", KubeflowTrainer.IDENTITY)
        .isFalse();
    admin.resource(binding).delete();
    admin.resource(policy).delete();
    on.awaitFinished(s, "llm");
    assertThat(s.condition("llm", "Finished").orElseThrow().reason).isEqualTo("Succeeded");
    plane.checkTrainer();
  }

  /** A JobSet of one pod, suspended, as an admin might write it. */
  private static GenericKubernetesResource adminsJobSet(String namespace) {
    return Serialization.unmarshal(
        """
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata: {name: by-admin, namespace: %s, labels: {berth.dev/queue-name: lq}}
        spec:
          suspend: true
          replicatedJobs:
          - name: node
            template:
              spec:
                template:
                  spec:
                    restartPolicy: Never
                    containers: [{name: node, image: busybox}]
        """
            .formatted(namespace),
        GenericKubernetesResource.class);
  }

  /**
   * Refuses, in {@code namespace}, every JobSet create and every change of a JobSet's spec.suspend
   * not made by the Trainer's service account ({@link KubeflowTrainer#IDENTITY}).
   */
  private static HasMetadata trainerWritesJobSets(String namespace) {
    return AdmissionPolicies.denying(
        TRAINER_ONLY,
        """
        resourceRules:
        - apiGroups: [jobset.x-k8s.io]
          apiVersions: ["*"]
          resources: [jobsets]
          operations: [CREATE, UPDATE]
        namespaceSelector:
          matchLabels: {kubernetes.io/metadata.name: %s}
        """
            .formatted(namespace),
        ("request.userInfo.username == '%s' || (request.operation == 'UPDATE'"
                + " && (has(oldObject.spec.suspend) && oldObject.spec.suspend)"
                + " == (has(object.spec.suspend) && object.spec.suspend))")
            .formatted(KubeflowTrainer.IDENTITY),
        "only the Trainer's service account creates or starts JobSets here");
  }

  // ---- a runtime that comes later --------------------------------------------------------------

  @Test
  void aTrainJobWaitsSuspendedForItsNamespacesRuntimeAndRunsOnceItIsCreated() {
    Scenario s = on.queue("tj-later", "tj-a100", 8);
    TrainJob job = trainJob(s.namespace, "later", "later-runtime", 1, 8, "");
    job.getSpec().runtimeRef.kind = "TrainingRuntime";
    s.client.resource(job).create();
    // Without its runtime neither Berth nor the Trainer knows its pods: no Workload, suspended.
    assertThat(s.workload("later")).isEmpty();
    assertThat(stored(s, "later").getSpec().suspend).isTrue();

    // A TrainingRuntime of its namespace, created now, brings it back: queued, admitted and run.
    GenericKubernetesResource runtime = runtime("later-runtime", "3s");
    runtime.setKind("TrainingRuntime");
    runtime.getMetadata().setNamespace(s.namespace);
    on.awaitNodesFree(s, "a100");
    s.client.resource(runtime).create();
    on.awaitOrDescribe(s, "later's pod Running", () -> allBoundAndRunning(s, "later", 1));
    assertThat(s.workload("later").orElseThrow().getSpec().podSets)
        .extracting(ps -> ps.name + "=" + ps.count)
        .containsExactly("node=1");
    on.awaitFinished(s, "later");
  }

  // ---- preemption ------------------------------------------------------------------------------

  @Test
  void aPreemptedTrainJobLosesEveryPodBeforeThePreemptorIsBound() {
    ClusterQueuePreemption preemption = new ClusterQueuePreemption();
    preemption.withinClusterQueue = ClusterQueuePreemption.WithinClusterQueue.LowerPriority;
    Scenario s = on.queue("tj-preempt", "tj-a100", 16, preemption);
    on.awaitNodesFree(s, "a100");
    s.client
        .resource(
            trainJob(
                s.namespace,
                "low",
                "tj-torch",
                2,
                8,
                ", " + Berth.PRIORITY_CLASS_LABEL + ": tj-low"))
        .create();
    on.awaitOrDescribe(s, "low's 2 pods Running", () -> allBoundAndRunning(s, "low", 2));

    try (OnPlane.StopThenBind order =
        new OnPlane.StopThenBind(
            s.client, s.namespace, JOBSET_NAME, "low", 2, JOBSET_NAME, "high")) {
      s.client
          .resource(
              trainJob(
                  s.namespace,
                  "high",
                  "tj-torch-5s",
                  2,
                  8,
                  ", " + Berth.PRIORITY_CLASS_LABEL + ": tj-high"))
          .create();
      on.awaitOrDescribe(s, "high's 2 pods Running", () -> allBoundAndRunning(s, "high", 2));
      // While high runs: the victim is suspended with only its own overrides, none of its pods
      // is left, and its Workload is requeued without quota.
      TrainJob low = stored(s, "low");
      assertThat(low.getSpec().suspend).isTrue();
      assertThat(low.getSpec().podSpecOverrides).isNullOrEmpty();
      assertThat(podsOf(s, "low")).isEmpty();
      assertThat(quotaReserved(s, "low")).isFalse();
      await().atMost(Duration.ofSeconds(10)).until(() -> order.order.size() == 2);
      assertThat(order.order).containsExactly("victim stopped", "preemptor bound");
    }
    on.awaitFinished(s, "high");
    // Then the victim runs again, on the quota high gave back.
    on.awaitOrDescribe(s, "low's 2 pods Running again", () -> allBoundAndRunning(s, "low", 2));
    s.client.resource(stored(s, "low")).delete();
  }

  // ---- a team member cannot get around the queue -----------------------------------------------

  /**
   * Namespace tj-team, selected by a ClusterQueue of 8 spot GPUs, with LocalQueues lq and other;
   * the member bound to edit, the chart's roles and a stand-in of the Trainer's and JobSet's
   * installations' roles, which grant their users TrainJobs and JobSets.
   */
  private static Scenario team() {
    KubernetesClient admin = plane.client();
    Namespaces.ensure(admin, TEAM);
    Scenario s = on.queue(TEAM, "tj-spot", 8);
    s.client.resource(ScenarioObjects.localQueue(TEAM, "other", TEAM)).create();
    TeamMemberRoles.bind(admin, MEMBER, TEAM);
    TeamMemberRoles.bindEditorStandIn(
        admin,
        MEMBER,
        TEAM,
        "trainjob-editor-stand-in",
        List.of("trainer.kubeflow.org", "jobset.x-k8s.io"),
        List.of("trainjobs", "jobsets"));
    return s;
  }

  /** A running JobSet claiming the TrainJob as its controller, as the Trainer would make it. */
  private static GenericKubernetesResource jobSetOf(TrainJob job, String name, int gpus) {
    return Serialization.unmarshal(
        """
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata:
          name: %s
          namespace: %s
          ownerReferences:
          - {apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, name: %s, uid: %s,
             controller: true}
        spec:
          suspend: false
          replicatedJobs:
          - name: node
            template:
              spec:
                parallelism: 1
                completions: 1
                template:
                  spec:
                    restartPolicy: Never
                    containers:
                    - name: node
                      image: pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime
                      resources: {requests: {nvidia.com/gpu: "%d"}, limits: {nvidia.com/gpu: "%d"}}
        """
            .formatted(
                name,
                job.getMetadata().getNamespace(),
                job.getMetadata().getName(),
                job.getMetadata().getUid(),
                gpus,
                gpus),
        GenericKubernetesResource.class);
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
                                withoutQueue(trainJob(TEAM, "unlabelled", "tj-torch", 1, 1, "")))
                            .dryRun()
                            .create(),
                    queueLabel));

    // Created running: stored suspended all the same; unsuspending it is the operator's.
    TrainJob waiting = trainJob(TEAM, "waiting", "tj-torch", 2, 8, "");
    waiting.getSpec().suspend = false;
    TrainJob stored = member.resource(waiting).create();
    assertThat(stored.getSpec().suspend).isTrue();
    assertDenied(() -> patch(member, stored, "{\"spec\": {\"suspend\": false}}"), "spec.suspend");
    // Its queue label cannot be taken away while it waits (it may move to another queue).
    assertDenied(
        () ->
            patch(
                member,
                stored,
                "{\"metadata\": {\"labels\": {\"" + Berth.QUEUE_NAME_LABEL + "\": null}}}"),
        queueLabel);
    // A running JobSet claiming the suspended TrainJob as its controller is refused.
    assertDenied(
        () -> member.resource(jobSetOf(stored, "waiting-forged", 8)).create(),
        "metadata.ownerReferences",
        "suspended");
    member.resource(stored).delete();

    // A running one (1 node of 1 GPU, admitted by Berth, its JobSet made by the Trainer) cannot
    // grow, nor ask for more per node, nor take other overrides, nor be given a JobSet it did not
    // make.
    member.resource(trainJob(TEAM, "small", "tj-torch", 1, 1, "")).create();
    on.awaitOrDescribe(s, "small's pod Running", () -> allBoundAndRunning(s, "small", 1));
    TrainJob running = stored(s, "small");
    assertDenied(
        () -> patch(member, running, "{\"spec\": {\"trainer\": {\"numNodes\": 4}}}"),
        "spec.trainer.numNodes",
        "cannot change");
    assertDenied(
        () ->
            patch(
                member,
                running,
                "{\"spec\": {\"trainer\": {\"resourcesPerNode\": {\"requests\": {\""
                    + SimNode.GPU
                    + "\": \"8\"}, \"limits\": {\""
                    + SimNode.GPU
                    + "\": \"8\"}}}}}"),
        "spec.trainer.resourcesPerNode");
    assertDenied(
        () -> patch(member, running, "{\"spec\": {\"podSpecOverrides\": null}}"),
        "spec.podSpecOverrides");
    assertDenied(
        () -> member.resource(jobSetOf(running, "small-forged", 1)).create(),
        "metadata.name",
        "TrainJob small's JobSet is named small");
    assertThat(podsOf(s, "small")).hasSize(1);
    assertThat(stored(s, "small").getSpec().trainer.numNodes).isEqualTo(1);
    member.resource(running).delete();
  }

  private static <T extends HasMetadata> T withoutQueue(T job) {
    job.getMetadata().getLabels().remove(Berth.QUEUE_NAME_LABEL);
    return job;
  }
}
