package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.AdmissionCheck;
import dev.berth.api.v1beta1.AdmissionCheckSpec;
import dev.berth.api.v1beta1.AdmissionChecksStrategy;
import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.ProvisioningRequestConfig;
import dev.berth.api.v1beta1.ProvisioningRequestConfigSpec;
import dev.berth.api.v1beta1.ProvisioningRequestConfigSpec.RetryStrategy;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus.AdmissionCheckState;
import dev.berth.e2e.plane.ClusterAutoscalerStandIn;
import dev.berth.e2e.plane.ClusterAutoscalerStandIn.Answer;
import dev.berth.e2e.plane.ControlPlane;
import dev.berth.e2e.plane.ProvisioningRequestCrd;
import dev.berth.e2e.plane.SimNode;
import dev.berth.operator.BerthOperator;
import dev.berth.operator.provisioning.ProvisioningRequest;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplate;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The built-in berth.dev/provisioning-request admission check on a whole control plane: a gang
 * assigned spot quota for which no node exists holds its quota while Berth asks the cluster
 * autoscaler for nodes through a ProvisioningRequest; {@link ClusterAutoscalerStandIn} plays the
 * autoscaler (creating KWOK nodes, or failing, or revoking), and the gang's pods really land on the
 * nodes it made. The ProvisioningRequest CRD is the upstream one from ../shared/third-party/crds/
 * where present ({@link ProvisioningRequestCrd}).
 */
class ProvisioningRequestE2EIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String SPOT = "prov-spot-h100";
  private static final String ATOMIC = "best-effort-atomic-scale-up.autoscaling.x-k8s.io";
  private static ControlPlane plane;
  private static OnPlane on;
  private static KubernetesClient client;
  private static BerthOperator operator;
  private static ClusterAutoscalerStandIn autoscaler;

  @BeforeAll
  static void setUp() {
    // One on-demand node; the spot flavor has none until the autoscaler makes them.
    plane =
        ControlPlane.start(
            "provisioning", List.of(SimNode.gpu("h100-a-0", SimNode.H100, "zone-a", "rack-a0")));
    on = new OnPlane(plane);
    client = plane.client();
    ProvisioningRequestCrd.install(client);
    Namespaces.ensure(client, "berth-system");
    operator = RunningOperator.startNew(plane.kubeconfig(), false);
    Toleration spot = new Toleration("NoSchedule", SimNode.LIFECYCLE, "Equal", null, "spot");
    client.resource(on.flavor(SPOT, SimNode.H100, "spot", List.of(spot))).create();
    autoscaler = ClusterAutoscalerStandIn.start(client);
  }

  @AfterAll
  static void tearDown() {
    if (autoscaler != null) {
      autoscaler.close();
    }
    if (operator != null) {
      operator.close();
    }
    if (plane != null) {
      plane.close();
    }
  }

  /** A config, the check naming it, and a ClusterQueue of 32 spot GPUs gated by it. */
  private static Scenario gatedQueue(String name, RetryStrategy retry) {
    ProvisioningRequestConfig config = new ProvisioningRequestConfig();
    config.getMetadata().setName(name);
    config.setSpec(new ProvisioningRequestConfigSpec(ATOMIC));
    config.getSpec().managedResources = List.of(SimNode.GPU);
    config.getSpec().parameters = Map.of("ValidUntilSeconds", "600");
    config.getSpec().retryStrategy = retry;
    client.resource(config).create();
    AdmissionCheck ac = new AdmissionCheck();
    ac.getMetadata().setName(name);
    ac.setSpec(
        new AdmissionCheckSpec(
            ProvisioningRequestConfig.CONTROLLER_NAME,
            new AdmissionCheckSpec.Parameters(Berth.GROUP, ProvisioningRequestConfig.KIND, name)));
    client.resource(ac).create();
    Scenario s = new Scenario(client, name);
    ClusterQueue cq = ScenarioObjects.clusterQueue(name, SPOT, SimNode.GPU, "32");
    cq.getSpec().admissionChecksStrategy = new AdmissionChecksStrategy();
    var rule = new AdmissionChecksStrategy.AdmissionCheckRule();
    rule.name = name;
    rule.onFlavors = List.of(SPOT);
    cq.getSpec().admissionChecksStrategy.admissionChecks = List.of(rule);
    client.resource(cq).create();
    client.resource(ScenarioObjects.localQueue(name, "lq", name)).create();
    return s;
  }

  private static Workload awaitWorkload(Scenario s, String job, Predicate<Workload> until) {
    return await()
        .atMost(WAIT)
        .until(
            () -> s.workload(job).orElse(null),
            wl -> wl != null && wl.getStatus() != null && until.test(wl));
  }

  private static Optional<Condition> condition(Workload wl, String type) {
    return wl.getStatus() == null || wl.getStatus().conditions == null
        ? Optional.empty()
        : wl.getStatus().conditions.stream().filter(c -> c.type.equals(type)).findFirst();
  }

  private static boolean is(Workload wl, String type, String status) {
    return condition(wl, type).map(c -> status.equals(c.status)).orElse(false);
  }

  private static AdmissionCheckState check(Workload wl) {
    return wl.getStatus().admissionChecks == null || wl.getStatus().admissionChecks.isEmpty()
        ? new AdmissionCheckState()
        : wl.getStatus().admissionChecks.get(0);
  }

  private static List<ProvisioningRequest> requests(String ns) {
    return client.resources(ProvisioningRequest.class).inNamespace(ns).list().getItems();
  }

  private static ProvisioningRequest awaitRequest(String ns, String name) {
    try {
      return await()
          .atMost(WAIT)
          .until(
              () ->
                  client.resources(ProvisioningRequest.class).inNamespace(ns).withName(name).get(),
              java.util.Objects::nonNull);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      // Where the namespace's Workloads, requests and Events stood, so a failure tells.
      throw new AssertionError(
          "no ProvisioningRequest "
              + name
              + " within "
              + WAIT
              + "; the namespace's Workloads:\n"
              + io.fabric8.kubernetes.client.utils.Serialization.asYaml(
                  client.resources(Workload.class).inNamespace(ns).list().getItems())
              + "its requests: "
              + requests(ns).stream().map(pr -> pr.getMetadata().getName()).toList()
              + "\nits Events:\n"
              + String.join(
                  "\n",
                  client.v1().events().inNamespace(ns).list().getItems().stream()
                      .map(
                          ev ->
                              ev.getLastTimestamp() + " " + ev.getReason() + ": " + ev.getMessage())
                      .toList()),
          e);
    }
  }

  private static List<String> events(String ns, String reason) {
    return client.v1().events().inNamespace(ns).list().getItems().stream()
        .filter(e -> reason.equals(e.getReason()))
        .map(e -> e.getMessage())
        .toList();
  }

  @Test
  void aSpotGangStartsOnlyOnceTheAutoscalerProvisionedItsNodesAndLandsOnThem() {
    Scenario s = gatedQueue("prov-gang", null);
    s.submit(OnPlane.gpuJob(s, "pretrain", 4, ControlPlane.RUN_FOR, "8s"));
    Workload reserved = awaitWorkload(s, "pretrain", wl -> is(wl, "QuotaReserved", "True"));
    String request = reserved.getMetadata().getName() + "-prov-gang-1";

    // Quota reserved, the request made from the gang's podSet on the spot flavor's nodes.
    ProvisioningRequest pr = awaitRequest(s.namespace, request);
    assertThat(pr.getSpec().provisioningClassName).isEqualTo(ATOMIC);
    assertThat(pr.getSpec().parameters).containsEntry("ValidUntilSeconds", "600");
    assertThat(pr.getSpec().podSets)
        .singleElement()
        .satisfies(ps -> assertThat(ps.count).isEqualTo(4));
    assertThat(pr.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getUid()).isEqualTo(reserved.getMetadata().getUid()));
    PodTemplate template =
        client
            .v1()
            .podTemplates()
            .inNamespace(s.namespace)
            .withName(pr.getSpec().podSets.get(0).podTemplateRef.name)
            .get();
    assertThat(template.getTemplate().getSpec().getNodeSelector())
        .containsEntry(SimNode.LIFECYCLE, "spot")
        .containsEntry(SimNode.GPU_PRODUCT, SimNode.H100);
    Workload waiting =
        awaitWorkload(
            s,
            "pretrain",
            wl ->
                check(wl).message != null
                    && check(wl).message.contains("waiting for the autoscaler"));
    assertThat(check(waiting).state).isEqualTo("Pending");
    // The reason the Job waits, where its owner looks.
    awaitWorkload(
        s,
        "pretrain",
        wl ->
            condition(wl, "Admitted")
                .map(c -> c.message)
                .orElse("")
                .contains("prov-gang (Pending: ProvisioningRequest " + request));
    await()
        .atMost(WAIT)
        .until(
            () -> {
              AdmissionCheck ac =
                  client.resources(AdmissionCheck.class).withName("prov-gang").get();
              return ac.getStatus() != null
                  && ac.getStatus().conditions != null
                  && ac.getStatus().conditions.stream()
                      .anyMatch(c -> c.type.equals("Active") && c.isTrue());
            });
    assertThat(s.staysSuspended("pretrain")).isTrue();
    assertThat(plane.podsOf(s.namespace, "pretrain")).isEmpty();

    List<String> nodes = autoscaler.provision(s.namespace, request);
    assertThat(nodes).hasSize(4);
    List<Pod> pods = on.runningPods(s, "pretrain", 4);
    assertThat(pods)
        .extracting(p -> p.getSpec().getNodeName())
        .containsExactlyInAnyOrderElementsOf(nodes);
    assertThat(pods)
        .allSatisfy(
            p ->
                assertThat(p.getMetadata().getAnnotations())
                    .containsEntry(ProvisioningRequest.CONSUME_ANNOTATION, request)
                    .containsEntry(ProvisioningRequest.CLASS_ANNOTATION, ATOMIC));
    Workload admitted = s.workload("pretrain").orElseThrow();
    assertThat(check(admitted).state).isEqualTo("Ready");
    assertThat(check(admitted).message).contains("is provisioned");
    assertThat(events(s.namespace, "ProvisioningRequestCreated")).isNotEmpty();

    // Finished: the request and its PodTemplate are cleaned up.
    on.awaitFinished(s, "pretrain");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(requests(s.namespace)).isEmpty();
              assertThat(client.v1().podTemplates().inNamespace(s.namespace).list().getItems())
                  .isEmpty();
            });
    autoscaler.removeNodes(request);
  }

  @Test
  void aFailedRequestIsRetriedAfterTheConfigsBackoffThenRejected() {
    Scenario s = gatedQueue("prov-fail", new RetryStrategy(1, 1, 2));
    autoscaler.answer(s.namespace, Answer.FAIL);
    s.submit(OnPlane.gpuJob(s, "unlucky", 1, ControlPlane.RUN_FOR, "3s"));

    // Attempt 1 fails: evicted with the check as reason, requeued after ~1 s (not the operator's
    // 60 s default), and a second request made for the next reservation.
    Workload first = awaitWorkload(s, "unlucky", wl -> wl.getStatus().requeueState != null);
    String name = first.getMetadata().getName();
    Instant evictedAt = Instant.parse(condition(first, "Evicted").orElseThrow().lastTransitionTime);
    assertThat(condition(first, "Evicted").orElseThrow().reason).isEqualTo("AdmissionCheck");
    assertThat(Instant.parse(first.getStatus().requeueState.requeueAt))
        .isBefore(evictedAt.plusSeconds(3));
    // The second request can live only ~100 ms (the stand-in fails it at once, the check
    // deactivates the workload and the request is deleted): a poll of the request itself can miss
    // it, as two full runs did. Its creation Event stays.
    await()
        .atMost(WAIT)
        .until(
            () ->
                events(s.namespace, "ProvisioningRequestCreated").stream()
                    .anyMatch(m -> m.contains(name + "-prov-fail-2 ")));
    await()
        .atMost(WAIT)
        .until(
            () ->
                requests(s.namespace).stream()
                    .noneMatch(pr -> pr.getMetadata().getName().equals(name + "-prov-fail-1")));

    // Attempt 2 fails too: the one retry is used up, the workload is deactivated.
    Workload rejected =
        awaitWorkload(
            s,
            "unlucky",
            wl -> Boolean.FALSE.equals(wl.getSpec().active) && is(wl, "QuotaReserved", "False"));
    assertThat(condition(rejected, "QuotaReserved").orElseThrow().message)
        .contains("AdmissionCheck prov-fail rejected the workload");
    assertThat(events(s.namespace, "ProvisioningRejected"))
        .anyMatch(m -> m.contains(name + "-prov-fail-2 failed") && m.contains("no retry left"));
    assertThat(s.running("unlucky")).isFalse();
    assertThat(events(s.namespace, "ProvisioningRetry")).isNotEmpty();
    await().atMost(WAIT).untilAsserted(() -> assertThat(requests(s.namespace)).isEmpty());
  }

  @Test
  void revokedCapacityEvictsTheRunningGangWhichRunsAgainOnNewNodes() {
    Scenario s = gatedQueue("prov-revoke", new RetryStrategy(3, 1, 2));
    autoscaler.answer(s.namespace, Answer.PROVISION);
    s.submit(OnPlane.gpuJob(s, "spot-train", 2, ControlPlane.STOP_AFTER, "1s"));
    Workload wl = awaitWorkload(s, "spot-train", w -> is(w, "Admitted", "True"));
    String first = wl.getMetadata().getName() + "-prov-revoke-1";
    List<String> firstNodes = autoscaler.nodes(first);
    assertThat(on.runningPods(s, "spot-train", 2))
        .extracting(p -> p.getSpec().getNodeName())
        .containsExactlyInAnyOrderElementsOf(firstNodes);

    autoscaler.revoke(s.namespace, first);
    Workload evicted =
        awaitWorkload(
            s, "spot-train", w -> is(w, "Evicted", "True") || w.getStatus().requeueState != null);
    assertThat(evicted.getStatus().requeueState).isNotNull();
    await().atMost(WAIT).until(() -> !s.running("spot-train"));
    on.awaitOrDescribe(
        s, "the revoked gang's pods gone", () -> plane.podsOf(s.namespace, "spot-train").isEmpty());
    autoscaler.removeNodes(first);

    // Requeued after the config's backoff: a new request, new nodes, the gang runs again there.
    String second = wl.getMetadata().getName() + "-prov-revoke-2";
    awaitRequest(s.namespace, second);
    List<Pod> again = on.runningPods(s, "spot-train", 2);
    assertThat(again)
        .extracting(p -> p.getSpec().getNodeName())
        .containsExactlyInAnyOrderElementsOf(autoscaler.nodes(second))
        .doesNotContainAnyElementsOf(firstNodes);
    assertThat(again)
        .allSatisfy(
            p ->
                assertThat(p.getMetadata().getAnnotations())
                    .containsEntry(ProvisioningRequest.CONSUME_ANNOTATION, second));
    // Stop it for good, and scale its nodes away, so no other gang lands on them.
    client.resource(s.job("spot-train")).delete();
    on.awaitOrDescribe(
        s, "the deleted gang's pods gone", () -> plane.podsOf(s.namespace, "spot-train").isEmpty());
    autoscaler.removeNodes(second);
  }

  @Test
  void aConfigWithABadClassOrBackoffIsRefusedWithItsFieldPath() {
    ProvisioningRequestConfig config = new ProvisioningRequestConfig();
    config.getMetadata().setName("bad");
    config.setSpec(new ProvisioningRequestConfigSpec("Not_A_Class"));
    config.getSpec().retryStrategy = new RetryStrategy(-1, 120, 60);
    assertThatThrownBy(() -> client.resource(config).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("spec.provisioningClassName")
        .hasMessageContaining("spec.retryStrategy.backoffLimitCount")
        .hasMessageContaining("backoffBaseSeconds must not exceed backoffMaxSeconds");
  }
}
