package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.Workload;
import dev.berth.e2e.plane.ControlPlane;
import dev.berth.e2e.plane.SimNode;
import dev.berth.engine.checks.RequeueBackoff;
import dev.berth.operator.BerthOperator;
import dev.berth.operator.WaitForPodsReady;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * waitForPodsReady on a whole control plane ({@link ControlPlane}): kube-scheduler leaves the pods
 * of a gang Pending while other pods fill their nodes, KWOK marks bound pods Ready, the Job
 * controller counts them, and Berth evicts, requeues, holds back and deactivates from that alone.
 * Fleet: three A100 nodes; the operator's timeout is 10 s, blockAdmission on, backoff 1 s (at most
 * 2 s), one requeue allowed.
 */
class PodsReadyE2EIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final List<String> NODES = List.of("pr-a100-0", "pr-a100-1", "pr-a100-2");

  /** Where the pods that fill nodes live (no LocalQueue: Berth does not manage them). */
  private static final String FILLERS = "pr-fillers";

  private static ControlPlane plane;
  private static OnPlane on;
  private static BerthOperator operator;

  @BeforeAll
  static void setUp() {
    plane =
        ControlPlane.start(
            "podsready",
            NODES.stream().map(n -> SimNode.gpu(n, SimNode.A100, "zone-a", "rack-" + n)).toList());
    on = new OnPlane(plane);
    Namespaces.ensure(plane.client(), "berth-system");
    operator =
        RunningOperator.startNew(
            plane.kubeconfig(),
            new WaitForPodsReady(
                true,
                TIMEOUT,
                true,
                null,
                WaitForPodsReady.RequeuingTimestamp.Eviction,
                new RequeueBackoff(1, 2, 1)));
    plane.client().resource(on.flavor("pr-a100", SimNode.A100, "on-demand", List.of())).create();
  }

  @AfterAll
  static void tearDown() {
    if (operator != null) {
      operator.close();
    }
    if (plane != null) {
      plane.close();
    }
  }

  /** Fillers removed and every Job of these tests deleted, also after a failure. */
  @AfterEach
  void cleanUp() {
    onlyOneNodeTakesPods(false);
    plane.client().batch().v1().jobs().inAnyNamespace().list().getItems().stream()
        .filter(j -> j.getMetadata().getNamespace().startsWith("pr-"))
        .forEach(j -> plane.client().resource(j).delete());
  }

  @Test
  void aGangThatCannotAllBeScheduledIsEvictedAfterTheTimeoutAndAdmittedAgainOnceNodesAreFree() {
    Scenario s = on.queue("pr-timeout", "pr-a100", 16);
    halfScheduledGang(s, "gang");
    Instant admitted = time(s.condition("gang", "Admitted"));
    Set<String> firstPods = podNames(s, "gang");

    on.awaitOrDescribe(
        s,
        "gang evicted with reason PodsReadyTimeout",
        () -> is(s.condition("gang", "Evicted"), "True", "PodsReadyTimeout"));
    Workload evicted = s.workload("gang").orElseThrow();
    assertThat(time(s.condition("gang", "Evicted")))
        .as("evicted no sooner than the timeout after admission")
        .isAfterOrEqualTo(admitted.plus(TIMEOUT));
    assertThat(evicted.getStatus().requeueState.count).isEqualTo(1);
    assertThat(evicted.getStatus().requeueState.requeueAt).isNotNull();
    // The eviction path: Job suspended, pods gone, quota released, requeued with that reason.
    on.awaitOrDescribe(
        s,
        "gang requeued after PodsReadyTimeout",
        () -> is(s.condition("gang", "Requeued"), "True", "PodsReadyTimeout"));
    assertThat(events(s, "Evicted")).anyMatch(e -> e.contains("waitForPodsReady timeout of 10s"));
    assertThat(events(s, "Suspended")).anyMatch(e -> e.contains("PodsReady"));

    onlyOneNodeTakesPods(false);
    on.awaitOrDescribe(
        s,
        "gang admitted again and PodsReady True",
        () ->
            is(s.condition("gang", "PodsReady"), "True", "PodsReady")
                && is(s.condition("gang", "Admitted"), "True", "Admitted"));
    List<Pod> pods = on.runningPods(s, "gang", 2);
    assertThat(pods)
        .extracting(p -> p.getMetadata().getName())
        .doesNotContainAnyElementsOf(firstPods);
    assertThat(s.condition("gang", "Evicted")).isEmpty();
    assertThat(s.workload("gang").orElseThrow().getStatus().requeueState.count).isEqualTo(1);
    assertThat(events(s, "PodsReady")).anyMatch(e -> e.contains("All 2 pods are ready"));
    String metrics = operator.registry().scrape();
    assertThat(metrics)
        .contains(
            "berth_workload_requeues_total{cluster_queue=\"pr-timeout\","
                + "reason=\"PodsReadyTimeout\"} 1.0");
    assertThat(metrics)
        .contains(
            "berth_admitted_until_ready_wait_time_seconds_count{cluster_queue=\"pr-timeout\"} 1");
  }

  @Test
  void blockAdmissionHoldsTheNextWorkloadUntilTheAdmittedOnesPodsAreReady() {
    Scenario s = on.queue("pr-block", "pr-a100", 48);
    halfScheduledGang(s, "first");
    // Quota would fit it (48 GPUs); only the first's unready pods keep it out.
    s.submit(OnPlane.gpuJob(s, "second", 1, ControlPlane.RUN_FOR, "2s"));
    on.awaitOrDescribe(
        s,
        "second pending, WaitingForPodsReady",
        () -> is(s.condition("second", "QuotaReserved"), "False", "WaitingForPodsReady"));
    assertThat(s.condition("second", "QuotaReserved").orElseThrow().message).contains("first");
    assertThat(s.staysSuspended("second")).isTrue();

    onlyOneNodeTakesPods(false);
    on.awaitOrDescribe(
        s,
        "first PodsReady, then second admitted",
        () ->
            is(s.condition("first", "PodsReady"), "True", "PodsReady")
                && is(s.condition("second", "Admitted"), "True", "Admitted"));
    assertThat(time(s.condition("second", "QuotaReserved")))
        .as("second reserved quota only after first's pods were ready")
        .isAfterOrEqualTo(time(s.condition("first", "PodsReady")));
    on.awaitFinished(s, "second");
  }

  @Test
  void aGangThatTimesOutMoreOftenThanTheBackoffLimitIsDeactivated() {
    Scenario s = on.queue("pr-limit", "pr-a100", 16);
    halfScheduledGang(s, "stuck");
    // One requeue allowed (backoffLimitCount 1): the second timeout deactivates it.
    on.awaitOrDescribe(
        s,
        "stuck evicted once",
        () ->
            s.workload("stuck")
                .map(w -> w.getStatus() != null && w.getStatus().requeueState != null)
                .orElse(false));
    await()
        .atMost(TIMEOUT.multipliedBy(4))
        .until(() -> Boolean.FALSE.equals(s.workload("stuck").orElseThrow().getSpec().active));
    on.awaitOrDescribe(
        s,
        "stuck evicted (RequeuingLimitExceeded), quota released",
        () ->
            is(s.condition("stuck", "Evicted"), "True", "RequeuingLimitExceeded")
                && is(s.condition("stuck", "QuotaReserved"), "False", "Deactivated"));
    Workload stuck = s.workload("stuck").orElseThrow();
    assertThat(stuck.getStatus().admission).isNull();
    assertThat(stuck.getStatus().requeueState.count).isEqualTo(1);
    assertThat(events(s, "RequeuingLimitExceeded")).anyMatch(e -> e.contains("deactivated"));
    on.awaitOrDescribe(
        s,
        "stuck's pods gone, Job suspended",
        () ->
            plane.podsOf(s.namespace, "stuck").isEmpty()
                && Boolean.TRUE.equals(s.job("stuck").getSpec().getSuspend()));
    // Deactivated, it is never admitted again, also once nodes are free.
    onlyOneNodeTakesPods(false);
    assertThat(s.staysSuspended("stuck")).isTrue();

    // Reactivated by hand, it starts over (requeueState reset) and now runs on the free nodes.
    String name = stuck.getMetadata().getName();
    s.client
        .resources(Workload.class)
        .inNamespace(s.namespace)
        .withName(name)
        .edit(
            w -> {
              w.getSpec().active = true;
              return w;
            });
    on.awaitOrDescribe(
        s,
        "stuck reactivated: requeueState reset, PodsReady",
        () ->
            s.workload("stuck").map(w -> w.getStatus().requeueState == null).orElse(false)
                && is(s.condition("stuck", "PodsReady"), "True", "PodsReady"));
    assertThat(events(s, "Reactivated")).isNotEmpty();
  }

  /**
   * With the nodes free of earlier tests' pods, all but one filled, submits a gang of two 8-GPU
   * pods that run until deleted and waits until it is admitted with PodsReady False.
   */
  private static void halfScheduledGang(Scenario s, String job) {
    on.awaitNodesFree(s, "pr-a100-");
    onlyOneNodeTakesPods(true);
    s.submit(OnPlane.gpuJob(s, job, 2, ControlPlane.STOP_AFTER, "0s"));
    on.awaitOrDescribe(
        s,
        job + " admitted, PodsReady False (WaitForStart)",
        () -> is(s.condition(job, "PodsReady"), "False", "WaitForStart"));
  }

  /**
   * Fills (or frees) every node but pr-a100-0 with an 8-GPU pod of no queue, so a gang of two 8-GPU
   * pods half binds. A filler that kube-scheduler bound itself is in its cache before the gang's
   * pods exist; a cordon could reach it after them.
   */
  private static void onlyOneNodeTakesPods(boolean full) {
    Namespaces.ensure(plane.client(), FILLERS);
    for (String node : NODES.subList(1, NODES.size())) {
      var pods = plane.client().pods().inNamespace(FILLERS);
      if (full) {
        pods.resource(filler(node)).create();
      } else {
        pods.withName("filler-" + node).delete();
      }
    }
    await()
        .atMost(OnPlane.POD_TIMEOUT)
        .until(
            () -> {
              var fillers = plane.client().pods().inNamespace(FILLERS).list().getItems();
              return full
                  ? fillers.size() == NODES.size() - 1
                      && fillers.stream().allMatch(p -> "Running".equals(p.getStatus().getPhase()))
                  : fillers.isEmpty();
            });
  }

  private static Pod filler(String node) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("filler-" + node)
        .withNamespace(FILLERS)
        .endMetadata()
        .withNewSpec()
        .withNodeSelector(Map.of(SimNode.HOSTNAME, node))
        .addNewContainer()
        .withName("hold")
        .withImage("busybox")
        .withResources(OnPlane.eightGpus())
        .endContainer()
        .endSpec()
        .build();
  }

  private static boolean is(Optional<Condition> c, String status, String reason) {
    return c.filter(x -> status.equals(x.status) && reason.equals(x.reason)).isPresent();
  }

  private static Instant time(Optional<Condition> c) {
    return Instant.parse(c.orElseThrow().lastTransitionTime);
  }

  private static Set<String> podNames(Scenario s, String job) {
    return plane.podsOf(s.namespace, job).stream()
        .map(p -> p.getMetadata().getName())
        .collect(Collectors.toSet());
  }

  /** The messages of the namespace's Events with this reason. */
  private static List<String> events(Scenario s, String reason) {
    return s.client.v1().events().inNamespace(s.namespace).list().getItems().stream()
        .filter(e -> reason.equals(e.getReason()))
        .map(Event::getMessage)
        .toList();
  }
}
