package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.Topology;
import dev.berth.api.v1beta1.TopologySpec;
import dev.berth.api.v1beta1.Workload;
import dev.berth.e2e.plane.ControlPlane;
import dev.berth.e2e.plane.SimNode;
import dev.berth.local.ControllerManager;
import dev.berth.local.JobSetController;
import dev.berth.operator.BerthOperator;
import dev.berth.operator.integration.jobset.JobSet;
import dev.berth.operator.integration.jobset.JobSetAdapter;
import dev.berth.webhook.WebhookRuntime;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobTemplateSpec;
import io.fabric8.kubernetes.api.model.batch.v1.JobTemplateSpecBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Gangs on a whole control plane ({@link ControlPlane}) with Berth's webhooks: where the pods of a
 * topology-placed Job land, a JobSet run by the JobSet controller (the real one where
 * scripts/jobset-binary.sh built it) and its pods stopping before a preemptor's bind, and what
 * happens without waitForPodsReady to a gang whose quota fits but whose nodes do not. Fleet: 4 H100
 * nodes in 2 racks of zone-a (Topology gang-dc), 2 A100 nodes.
 */
class GangPlacementE2EIT {
  private static final String ZONE = SimNode.ZONE;
  private static final String RACK = SimNode.RACK;
  private static final String HOST = SimNode.HOSTNAME;
  private static final String JOBSET_NAME = JobSetAdapter.JOBSET_NAME_LABEL;
  private static ControlPlane plane;
  private static OnPlane on;
  private static WebhookRuntime webhooks;
  private static BerthOperator operator;

  @BeforeAll
  static void setUp() throws Exception {
    plane =
        ControlPlane.start(
            "gangs",
            List.of(
                SimNode.gpu("h100-a0-0", SimNode.H100, "zone-a", "rack-a0"),
                SimNode.gpu("h100-a0-1", SimNode.H100, "zone-a", "rack-a0"),
                SimNode.gpu("h100-a1-0", SimNode.H100, "zone-a", "rack-a1"),
                SimNode.gpu("h100-a1-1", SimNode.H100, "zone-a", "rack-a1"),
                SimNode.gpu("a100-b-0", SimNode.A100, "zone-b", "rack-b0"),
                SimNode.gpu("a100-b-1", SimNode.A100, "zone-b", "rack-b1")));
    on = new OnPlane(plane);
    var admin = plane.client();
    Namespaces.ensure(admin, "berth-system");
    webhooks = ServedWebhooks.start(admin);
    Topology topology = new Topology();
    topology.getMetadata().setName("gang-dc");
    topology.setSpec(new TopologySpec());
    topology.getSpec().levels =
        List.of(
            new TopologySpec.TopologyLevel(ZONE),
            new TopologySpec.TopologyLevel(RACK),
            new TopologySpec.TopologyLevel(HOST));
    admin.resource(topology).create();
    ResourceFlavor h100 = on.flavor("gang-h100", SimNode.H100, "on-demand", List.of());
    h100.getSpec().topologyName = "gang-dc";
    admin.resource(h100).create();
    admin.resource(on.flavor("gang-a100", SimNode.A100, "on-demand", List.of())).create();
    operator = RunningOperator.startNew(plane.kubeconfig(), false);
    Namespaces.ensure(admin, "gang-probe");
    ServedWebhooks.awaitPodGating(admin, "gang-probe");
  }

  @AfterAll
  static void tearDown() {
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

  @Test
  void eachPodOfATopologyPlacedJobLandsOnTheHostItsWorkloadAssigns() {
    Scenario s = on.queue("gang-topology", "gang-h100", 32);
    // 3 pods of 8 GPUs prefer one rack of 2 nodes: Berth spreads them over both racks and names
    // each pod's host; without that, kube-scheduler could pick any 3 of the 4 free nodes.
    Job job = OnPlane.gpuJob(s, "spread", 3, ControlPlane.RUN_FOR, "3s");
    job.getSpec()
        .getTemplate()
        .getMetadata()
        .getAnnotations()
        .put(Berth.PODSET_PREFERRED_TOPOLOGY, RACK);
    s.submit(job);

    List<Pod> pods = on.runningPods(s, "spread", 3);
    PodSetAssignment.TopologyAssignment assigned = assignment(s, "spread").topologyAssignment;
    assertThat(assigned.levels).containsExactly(ZONE, RACK, HOST);
    assertThat(assigned.domains.stream().map(d -> d.values.get(1)).distinct()).hasSize(2);
    Map<String, Long> perHost =
        assigned.domains.stream()
            .collect(
                Collectors.groupingBy(d -> d.values.get(2), Collectors.summingLong(d -> d.count)));
    assertThat(
            pods.stream()
                .collect(
                    Collectors.groupingBy(p -> p.getSpec().getNodeName(), Collectors.counting())))
        .as("pods per node (spec.nodeName) against the Workload's topology assignment")
        .isEqualTo(perHost);
    on.awaitJobCondition(s, "spread", "Complete");
    on.awaitFinished(s, "spread");
  }

  @Test
  void aJobSetAdmittedWholeRunsAllItsChildJobs() {
    Scenario s = on.queue("gang-jobset", "gang-a100", 16);
    awaitA100NodesFree(s);
    s.client.resource(jobSet(s, "pretrain", ControlPlane.RUN_FOR, "3s")).create();

    // Both pods bound and Running together: the JobSet started only once both had quota.
    on.awaitOrDescribe(
        s,
        "2 pods of JobSet pretrain Running",
        () -> {
          List<Pod> now = jobSetPods(s, "pretrain");
          return now.size() == 2
              && now.stream().allMatch(p -> "Running".equals(p.getStatus().getPhase()));
        });
    List<Pod> pods = jobSetPods(s, "pretrain");
    assertThat(pods)
        .allSatisfy(
            p -> assertThat(plane.nodeLabels(p)).containsEntry(SimNode.GPU_PRODUCT, SimNode.A100));
    assertThat(pods)
        .extracting(p -> p.getSpec().getNodeName())
        .containsExactlyInAnyOrder("a100-b-0", "a100-b-1");
    // The JobSet controller's child Jobs, one per replica of each replicatedJob, each Complete.
    on.awaitOrDescribe(s, "JobSet pretrain Completed", () -> completed(s, "pretrain"));
    List<Job> children =
        s.client
            .batch()
            .v1()
            .jobs()
            .inNamespace(s.namespace)
            .withLabel(JOBSET_NAME, "pretrain")
            .list()
            .getItems();
    assertThat(children)
        .extracting(j -> j.getMetadata().getName())
        .containsExactlyInAnyOrder("pretrain-leader-0", "pretrain-workers-0");
    assertThat(children).allSatisfy(j -> assertThat(j.getStatus().getSucceeded()).isEqualTo(1));
    on.awaitFinished(s, "pretrain");
    System.out.println(
        "[berth-test] JobSet run by "
            + (plane.realJobSet() ? "the JobSet controller" : "the suite's JobSetStandIn"));
  }

  private static final String CONTROLLERS_ONLY = "e2e-controllers-write-as-themselves";

  /**
   * The JobSet controller creates the child Jobs as its own service account, and the Job controller
   * their pods as its own, as in a cluster: a policy refuses any other user (the admin, which is
   * also the operator's identity here, above all) in the namespace, so a controller falling back to
   * the admin's identity leaves the JobSet without Jobs or pods. Berth's webhooks check each of
   * these writes as a controller's, not as the operator's.
   */
  @Test
  void aJobSetsChildJobsAndPodsAreWrittenByTheirControllersOwnServiceAccounts() {
    Scenario s = on.queue("gang-identity", "gang-a100", 16);
    awaitA100NodesFree(s);
    var admin = plane.client();
    HasMetadata policy = admin.resource(controllersOnly(s.namespace)).create();
    HasMetadata binding = admin.resource(AdmissionPolicies.binding(CONTROLLERS_ONLY)).create();
    try {
      on.awaitOrDescribe(
          s,
          "policy " + CONTROLLERS_ONLY + " in force: the admin cannot create a pod",
          () -> {
            try {
              admin.resource(probePod(s.namespace)).dryRun().create();
              return false;
            } catch (KubernetesClientException e) {
              assertThat(e).hasMessageContaining(CONTROLLERS_ONLY);
              return true;
            }
          });
      s.client.resource(jobSet(s, "as-themselves", ControlPlane.RUN_FOR, "3s")).create();
      on.awaitOrDescribe(s, "JobSet as-themselves Completed", () -> completed(s, "as-themselves"));
      assertThat(jobSetPods(s, "as-themselves")).hasSize(2);
      on.awaitFinished(s, "as-themselves");
    } finally {
      admin.resource(binding).delete();
      admin.resource(policy).delete();
    }
  }

  /**
   * Refuses, in {@code namespace}, every pod create but the Job controller's and, where the real
   * JobSet controller runs (the suite's stand-in writes as the admin), every Job create but its.
   */
  private static ValidatingAdmissionPolicy controllersOnly(String namespace) {
    String jobs =
        plane.realJobSet() ? "'" + JobSetController.IDENTITY + "'" : "request.userInfo.username";
    return AdmissionPolicies.denying(
        CONTROLLERS_ONLY,
        """
        namespaceSelector:
          matchLabels: {kubernetes.io/metadata.name: %s}
        resourceRules:
          - apiGroups: [""]
            apiVersions: ["v1"]
            operations: ["CREATE"]
            resources: ["pods"]
          - apiGroups: ["batch"]
            apiVersions: ["v1"]
            operations: ["CREATE"]
            resources: ["jobs"]
        """
            .formatted(namespace),
        ("request.userInfo.username == (request.resource.resource == 'pods' ? '%s' : %s)")
            .formatted(ControllerManager.JOB_CONTROLLER_IDENTITY, jobs),
        "only the Job and JobSet controllers create pods and Jobs here");
  }

  private static Pod probePod(String namespace) {
    return Serialization.unmarshal(
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: identity-probe, namespace: %s}
        spec:
          containers: [{name: c, image: busybox}]
        """
            .formatted(namespace),
        Pod.class);
  }

  @Test
  void aGangWhoseQuotaFitsButWhoseNodesDoNotIsAdmittedAndHalfScheduled() {
    Scenario s = on.queue("gang-cordon", "gang-a100", 16);
    awaitA100NodesFree(s);
    cordon("a100-b-1", true);
    try {
      // Until deleted: a 2-pod gang of 8 GPUs each, for two A100 nodes of which one is cordoned.
      s.submit(OnPlane.gpuJob(s, "gang", 2, ControlPlane.STOP_AFTER, "0s"));
      on.awaitOrDescribe(
          s,
          "one pod of gang Running, one Unschedulable",
          () -> {
            List<Pod> pods = plane.podsOf(s.namespace, "gang");
            return pods.size() == 2
                && pods.stream().filter(p -> "Running".equals(p.getStatus().getPhase())).count()
                    == 1
                && pods.stream().anyMatch(GangPlacementE2EIT::unschedulable);
          });
      // With waitForPodsReady off (the default, as here) quota stays reserved and the Workload
      // Admitted while half the gang waits; PodsReadyE2EIT has it on and evicts after a timeout.
      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(5))
          .until(
              () ->
                  plane.podsOf(s.namespace, "gang").stream()
                          .filter(GangPlacementE2EIT::unschedulable)
                          .count()
                      == 1);
      assertThat(s.condition("gang", "Admitted"))
          .hasValueSatisfying(c -> assertThat(c.status).isEqualTo("True"));
      assertThat(s.condition("gang", "Finished")).isEmpty();
      Pod running =
          plane.podsOf(s.namespace, "gang").stream()
              .filter(p -> "Running".equals(p.getStatus().getPhase()))
              .findFirst()
              .orElseThrow();
      assertThat(running.getSpec().getNodeName()).isEqualTo("a100-b-0");
    } finally {
      cordon("a100-b-1", false);
    }
    // Uncordoned, the waiting pod binds to the node it was kept off.
    on.awaitOrDescribe(
        s,
        "both pods of gang Running",
        () ->
            plane.podsOf(s.namespace, "gang").stream()
                    .filter(p -> "Running".equals(p.getStatus().getPhase()))
                    .count()
                == 2);
    s.client.resource(s.job("gang")).delete();
  }

  @Test
  void aPreemptedJobSetsPodsAllStopBeforeThePreemptorsPodIsBound() {
    Scenario s = preemptingA100Queue("gang-preempt");
    // The victim holds both A100 nodes until stopped, and its pods take 3 s to stop.
    s.client.resource(lowPriorityJobSet(s, "victim", "3s")).create();
    awaitPodsRunning(s, "victim", 2);

    try (OnPlane.StopThenBind events =
        new OnPlane.StopThenBind(plane.client(), s.namespace, JOBSET_NAME, "victim", 2, "urgent")) {
      Job urgent = OnPlane.gpuJob(s, "urgent", 1, ControlPlane.RUN_FOR, "1s");
      urgent.getMetadata().getLabels().put("berth.dev/priority-class", "gang-high");
      s.submit(urgent);
      on.awaitJobCondition(s, "urgent", "Complete");
      // Berth released the JobSet's quota only once its child Jobs had no pod left, terminating
      // ones included: the urgent pod never shared a node with a stopping victim pod.
      assertThat(events.order).containsExactly("victim stopped", "preemptor bound");
    } finally {
      s.client.resources(JobSet.class).inNamespace(s.namespace).withName("victim").delete();
    }
  }

  /**
   * An evicted JobSet's quota goes back only once the Job controller has stopped, counted and
   * acknowledged each of its child Jobs. What Berth's informer shows of the child Jobs lags their
   * pods (the Job controller writes a child Job's counts after it has made its pods, and its writes
   * can be refused or slow under load): here a ValidatingAdmissionPolicy of the API server refuses
   * the Job controller's status writes to the victim's child Jobs while the victim runs and is
   * preempted, so that they show no pod while two run, and, once deleted, their pods stay uncounted
   * (the controller's tracking finalizer stays on). Quota given back on the child Jobs' counts
   * alone goes to the preemptor while the victim's pods are not yet stopped and counted.
   */
  @Test
  void anEvictedJobSetKeepsItsQuotaUntilEachChildJobsStopIsAcknowledged() {
    Scenario s = preemptingA100Queue("gang-held");
    var admin = plane.client();
    HasMetadata policy = admin.resource(heldChildStatus("held-victim")).create();
    HasMetadata binding = admin.resource(AdmissionPolicies.binding(HELD_POLICY)).create();
    try {
      awaitPolicyInForce(s, "held-victim");
      JobSet victim = lowPriorityJobSet(s, "held-victim", "1s");
      // Its pods, deleted by the suspension, end Failed: let that not fail the child Jobs.
      victim.getSpec().replicatedJobs.forEach(rj -> rj.template.getSpec().setBackoffLimit(4));
      s.client.resource(victim).create();
      awaitPodsRunning(s, "held-victim", 2);
      assertThat(childJobs(s, "held-victim"))
          .as("the child Jobs' counts, which the Job controller could not write")
          .allSatisfy(
              j -> assertThat(j.getStatus() == null ? null : j.getStatus().getActive()).isNull());

      try (ReleaseWitness witness = new ReleaseWitness(s, "held-victim")) {
        Job urgent = OnPlane.gpuJob(s, "held-urgent", 1, ControlPlane.RUN_FOR, "1s");
        urgent.getMetadata().getLabels().put("berth.dev/priority-class", "gang-high");
        s.submit(urgent);
        // Evicted: the JobSet suspended, the JobSet controller suspends its child Jobs, the Job
        // controller deletes their pods, which stop but stay uncounted while the policy holds.
        on.awaitOrDescribe(
            s,
            "held-victim's child Jobs suspended and its pods deleted",
            () ->
                childJobs(s, "held-victim").stream()
                        .allMatch(j -> Boolean.TRUE.equals(j.getSpec().getSuspend()))
                    && jobSetPods(s, "held-victim").stream()
                        .allMatch(p -> p.getMetadata().getDeletionTimestamp() != null));
        await()
            .during(Duration.ofSeconds(3))
            .atMost(Duration.ofSeconds(5))
            .untilAsserted(
                () -> {
                  assertThat(witness.uncountedAtRelease)
                      .as("victim pods not yet counted when its quota went back")
                      .isEmpty();
                  assertThat(s.condition("held-victim", "QuotaReserved"))
                      .hasValueSatisfying(c -> assertThat(c.status).isEqualTo("True"));
                  assertThat(s.running("held-urgent")).isFalse();
                });

        // The Job controller may write again; touched, the child Jobs are synced at once rather
        // than after the controller's back-off.
        admin.resource(binding).delete();
        binding = null;
        for (Job child : childJobs(s, "held-victim")) {
          s.client
              .batch()
              .v1()
              .jobs()
              .inNamespace(s.namespace)
              .withName(child.getMetadata().getName())
              .edit(
                  j -> {
                    j.getMetadata().getLabels().put("e2e.berth.dev/touched", "true");
                    return j;
                  });
        }
        on.awaitJobCondition(s, "held-urgent", "Complete");
        assertThat(witness.released).as("the victim's quota given back").isTrue();
        assertThat(witness.uncountedAtRelease)
            .as("victim pods not yet counted when its quota went back")
            .isEmpty();
        assertThat(childJobs(s, "held-victim"))
            .allSatisfy(
                j ->
                    assertThat(j.getMetadata().getAnnotations())
                        .containsKey(Berth.STOP_REQUESTED_ANNOTATION));
      }
    } finally {
      if (binding != null) {
        admin.resource(binding).delete();
      }
      admin.resource(policy).delete();
      s.client.resources(JobSet.class).inNamespace(s.namespace).withName("held-victim").delete();
    }
  }

  private static final String HELD_POLICY = "e2e-held-child-status";

  /**
   * Refuses every status write to the child Jobs of JobSet {@code jobSet} (the Job controller's:
   * nothing else writes them while the pods are uncounted), and, to tell when it is in force, the
   * creation of a ConfigMap carrying the same label.
   */
  private static ValidatingAdmissionPolicy heldChildStatus(String jobSet) {
    return AdmissionPolicies.denying(
        HELD_POLICY,
        """
        objectSelector:
          matchLabels:
            %s: %s
        resourceRules:
          - apiGroups: ["batch"]
            apiVersions: ["v1"]
            operations: ["UPDATE"]
            resources: ["jobs/status"]
          - apiGroups: [""]
            apiVersions: ["v1"]
            operations: ["CREATE"]
            resources: ["configmaps"]
        """
            .formatted(JOBSET_NAME, jobSet),
        "false",
        "child Job status held (GangPlacementE2EIT)");
  }

  /** Waits until the API server refuses a probe ConfigMap labelled as the held JobSet's. */
  private static void awaitPolicyInForce(Scenario s, String jobSet) {
    on.awaitOrDescribe(
        s,
        "policy " + HELD_POLICY + " in force",
        () -> {
          ConfigMap probe =
              new ConfigMapBuilder()
                  .withNewMetadata()
                  .withGenerateName("held-probe-")
                  .withNamespace(s.namespace)
                  .withLabels(Map.of(JOBSET_NAME, jobSet))
                  .endMetadata()
                  .build();
          try {
            s.client.resource(s.client.resource(probe).create()).delete();
            return false;
          } catch (KubernetesClientException e) {
            assertThat(e).hasMessageContaining("child Job status held");
            return true;
          }
        });
  }

  /**
   * Watches a JobSet's Workload; when its quota goes back (QuotaReserved False, or Finished), lists
   * the JobSet's pods and keeps those its Job controller has not counted yet (the tracking
   * finalizer on, or not stopped). Listed after the release, so a pod counted since reads as
   * counted, never the other way round: a pod it keeps was uncounted when the quota went back.
   */
  private static final class ReleaseWitness implements AutoCloseable {
    final List<String> uncountedAtRelease = new CopyOnWriteArrayList<>();
    volatile boolean released;
    private final Watch watch;

    ReleaseWitness(Scenario s, String jobSet) {
      watch =
          s.client
              .resources(Workload.class)
              .inNamespace(s.namespace)
              .watch(
                  new Watcher<>() {
                    @Override
                    public void eventReceived(Action action, Workload wl) {
                      boolean ours =
                          wl.getMetadata().getOwnerReferences() != null
                              && wl.getMetadata().getOwnerReferences().stream()
                                  .anyMatch(o -> jobSet.equals(o.getName()));
                      // Given back by the eviction, or by a finish (a failed child Job).
                      boolean releasedNow =
                          wl.getStatus() != null
                              && wl.getStatus().conditions != null
                              && wl.getStatus().conditions.stream()
                                  .anyMatch(
                                      c ->
                                          ("QuotaReserved".equals(c.type)
                                                  && "False".equals(c.status))
                                              || ("Finished".equals(c.type)
                                                  && "True".equals(c.status)));
                      if (!ours || !releasedNow || released) {
                        return;
                      }
                      released = true;
                      for (Pod pod : jobSetPods(s, jobSet)) {
                        List<String> finalizers = pod.getMetadata().getFinalizers();
                        String phase = pod.getStatus().getPhase();
                        if ((finalizers != null
                                && finalizers.contains("batch.kubernetes.io/job-tracking"))
                            || !("Succeeded".equals(phase) || "Failed".equals(phase))) {
                          uncountedAtRelease.add(pod.getMetadata().getName() + " " + phase);
                        }
                      }
                    }

                    @Override
                    public void onClose(WatcherException cause) {}
                  });
    }

    @Override
    public void close() {
      watch.close();
    }
  }

  private static List<Job> childJobs(Scenario s, String jobSet) {
    return s.client
        .batch()
        .v1()
        .jobs()
        .inNamespace(s.namespace)
        .withLabel(JOBSET_NAME, jobSet)
        .list()
        .getItems();
  }

  /**
   * Priority classes gang-low and gang-high, and a queue {@code name} of the A100 nodes' 16 GPUs
   * that preempts lower priorities within itself, once the nodes are free.
   */
  private static Scenario preemptingA100Queue(String name) {
    on.priorityClass("gang-low", 10);
    on.priorityClass("gang-high", 1000);
    ClusterQueuePreemption preemption = new ClusterQueuePreemption();
    preemption.withinClusterQueue = ClusterQueuePreemption.WithinClusterQueue.LowerPriority;
    Scenario s = on.queue(name, "gang-a100", 16, preemption);
    awaitA100NodesFree(s);
    return s;
  }

  /**
   * A JobSet of priority class gang-low whose two pods of 8 GPUs run until deleted, and {@code
   * stopAfter} longer.
   */
  private static JobSet lowPriorityJobSet(Scenario s, String name, String stopAfter) {
    JobSet js = jobSet(s, name, ControlPlane.STOP_AFTER, stopAfter);
    js.getMetadata()
        .setLabels(Map.of(Berth.QUEUE_NAME_LABEL, "lq", "berth.dev/priority-class", "gang-low"));
    return js;
  }

  private static void awaitPodsRunning(Scenario s, String jobSet, int count) {
    on.awaitOrDescribe(
        s,
        count + " pods of JobSet " + jobSet + " Running",
        () ->
            jobSetPods(s, jobSet).stream()
                    .filter(p -> "Running".equals(p.getStatus().getPhase()))
                    .count()
                == count);
  }

  /** Waits until no pod still runs on the A100 nodes (tests of this class take turns on them). */
  private static void awaitA100NodesFree(Scenario s) {
    on.awaitNodesFree(s, "a100-");
  }

  private static void cordon(String node, boolean unschedulable) {
    on.cordon(node, unschedulable);
  }

  private static boolean unschedulable(Pod pod) {
    return pod.getSpec().getNodeName() == null
        && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(
                c ->
                    "PodScheduled".equals(c.getType())
                        && "False".equals(c.getStatus())
                        && "Unschedulable".equals(c.getReason()));
  }

  private static PodSetAssignment assignment(Scenario s, String owner) {
    Workload wl = s.workload(owner).orElseThrow();
    return wl.getStatus().admission.podSetAssignments.get(0);
  }

  /** A suspended JobSet of a leader and a worker Job, a pod of 8 GPUs each, ended as annotated. */
  private static JobSet jobSet(Scenario s, String name, String annotation, String after) {
    JobSet js = new JobSet();
    js.getMetadata().setNamespace(s.namespace);
    js.getMetadata().setName(name);
    js.getMetadata().setLabels(Map.of(Berth.QUEUE_NAME_LABEL, "lq"));
    js.setSpec(new JobSet.Spec());
    js.getSpec().suspend = true;
    js.getSpec().replicatedJobs =
        List.of(replicated("leader", annotation, after), replicated("workers", annotation, after));
    return js;
  }

  private static JobSet.ReplicatedJob replicated(String name, String annotation, String after) {
    JobSet.ReplicatedJob rj = new JobSet.ReplicatedJob();
    rj.name = name;
    rj.replicas = 1;
    JobTemplateSpec template =
        new JobTemplateSpecBuilder()
            .withNewSpec()
            .withParallelism(1)
            .withCompletions(1)
            .withBackoffLimit(0)
            .withNewTemplate()
            .withNewMetadata()
            .addToAnnotations(annotation, after)
            .endMetadata()
            .withNewSpec()
            .withRestartPolicy("Never")
            .addNewContainer()
            .withName("trainer")
            .withImage("trainer:1")
            .withResources(OnPlane.eightGpus())
            .endContainer()
            .endSpec()
            .endTemplate()
            .endSpec()
            .build();
    rj.template = template;
    return rj;
  }

  private static List<Pod> jobSetPods(Scenario s, String jobSet) {
    return s.client
        .pods()
        .inNamespace(s.namespace)
        .withLabel(JOBSET_NAME, jobSet)
        .list()
        .getItems();
  }

  private static boolean completed(Scenario s, String name) {
    JobSet js = s.client.resources(JobSet.class).inNamespace(s.namespace).withName(name).get();
    return js.getStatus() != null
        && js.getStatus().conditions != null
        && js.getStatus().conditions.stream()
            .anyMatch(c -> "Completed".equals(c.get("type")) && "True".equals(c.get("status")));
  }
}
