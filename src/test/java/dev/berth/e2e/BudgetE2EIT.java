package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Budget;
import dev.berth.api.v1beta1.BudgetStatus;
import dev.berth.api.v1beta1.BudgetWhenExhausted;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.UsageReport;
import dev.berth.api.v1beta1.UsageReportStatus;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.BerthOperator;
import dev.berth.testing.Budgets;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.micrometer.core.instrument.Gauge;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A budget on the real API server: LocalQueue "train" may use 0.001 GPU-hours (3.6 GPU-seconds) a
 * month. "first" (2 GPUs) runs until the budget's status says it is spent (its running time is
 * charged before it ends), then finishes; "second" waits with reason BudgetExhausted and the
 * numbers, and the metrics show the window; a restarted operator still holds it. The operator reads
 * budget windows on a clock the test holds: moved to the first instant of next month, the new
 * window admits "second". The month's UsageReport shows the budget as its status does. Switched to
 * RunOnIdleCapacity once "second" spent the new month too, a workload of the spent LocalQueue runs
 * on idle capacity, marked, and is the first victim of a workload within budget that needs the
 * room. No sleeps: every wait is for a condition. The CRD refuses a Budget naming two targets,
 * naming the field.
 */
class BudgetE2EIT {
  private static final String NS = "budget";
  private static final String GPU = "nvidia.com/gpu";

  /** The system clock moved by an offset the test sets. */
  private static final class MovableClock extends Clock {
    private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Instant instant() {
      return Instant.now().plus(offset.get());
    }

    void moveTo(Instant at) {
      offset.set(Duration.between(Instant.now(), at));
    }
  }

  @Test
  void aSpentBudgetHoldsTheNextWorkloadUntilTheNextWindow() {
    MovableClock clock = new MovableClock();
    try (TestApiServer.Cluster cluster = TestApiServer.dedicated()) {
      KubernetesClient client = cluster.client();
      Namespaces.ensure(client, "berth-system");
      Namespaces.ensure(client, NS);
      BerthOperator operator = RunningOperator.startNew(cluster.kubeconfig(), "", clock);
      try {
        client.resource(ScenarioObjects.flavor("budget-gpu", Map.of())).create();
        client.resource(ScenarioObjects.clusterQueue("budget-cq", "budget-gpu", GPU, "4")).create();
        client.resource(ScenarioObjects.localQueue(NS, "train", "budget-cq")).create();
        client.resource(budget("train-gpu", "0.001")).create();

        client.resource(gpuJob("first", "2")).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> running(client, "first"));
        // Charged while it runs: 2 GPUs spend 3.6 GPU-seconds in 1.8 s.
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () ->
                    assertThat(status(client))
                        .as("Budget status %s", Serialization.asJson(status(client)))
                        .extracting(s -> s.exhausted)
                        .isEqualTo(true));
        BudgetStatus spent = status(client);
        String month = spent.window;
        assertThat(month).isEqualTo(clock.instant().toString().substring(0, 7));
        Instant resets = Instant.parse(spent.resetsAt);
        assertThat(spent.message)
            .startsWith("Budget train-gpu (LocalQueue budget/train): used 0.00")
            .endsWith(
                " of 0.001 nvidia.com/gpu-hours in "
                    + month
                    + "; resets "
                    + resets.toString().substring(0, 16)
                    + "Z");
        Kubelet.complete(client, job(client, "first"));

        client.resource(gpuJob("second", "1")).create();
        Condition waiting =
            await()
                .atMost(Duration.ofSeconds(30))
                .until(
                    () -> quotaReserved(client, "second").orElse(null),
                    c -> c != null && "BudgetExhausted".equals(c.reason));
        assertThat(waiting.status).isEqualTo("False");
        assertThat(waiting.message)
            .contains("used 0.00")
            .contains(" of 0.001 nvidia.com/gpu-hours in " + month + "; resets ");
        assertThat(running(client, "second")).isFalse();
        assertThat(gauge(operator, "berth_budget_limit", month)).isEqualTo(0.001);
        assertThat(gauge(operator, "berth_budget_used", month)).isGreaterThanOrEqualTo(0.001);

        // A restart keeps the month's charges (the Budget's status, the Workloads' records): the
        // new operator holds "second" from its first cycle on.
        operator.close();
        operator = RunningOperator.startNew(cluster.kubeconfig(), "", clock);
        BerthOperator restarted = operator;
        await().atMost(Duration.ofSeconds(30)).until(() -> cycles(restarted) >= 3);
        assertThat(running(client, "second")).isFalse();
        assertThat(quotaReserved(client, "second"))
            .get()
            .extracting(c -> c.reason)
            .isEqualTo("BudgetExhausted");
        assertThat(gauge(restarted, "berth_budget_used", month)).isGreaterThanOrEqualTo(0.001);

        // The month's UsageReport of the namespace (written once "first" ended) shows the budget
        // charging its runs, as the Budget's status had it then.
        UsageReportStatus.BudgetUse shown =
            await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> reportedBudget(client, month), u -> u != null);
        assertThat(shown.target).isEqualTo("LocalQueue budget/train");
        assertThat(shown.status.window).isEqualTo(month);
        assertThat(shown.status.resetsAt).isEqualTo(spent.resetsAt);
        assertThat(shown.status.windowStart).isEqualTo(spent.windowStart);
        assertThat(shown.status.exhausted).isTrue();
        assertThat(shown.status.counted).isNull();
        assertThat(shown.status.resources)
            .singleElement()
            .satisfies(
                r -> {
                  assertThat(r.resource).isEqualTo(GPU);
                  assertThat(r.limitHours).isEqualTo("0.001");
                  assertThat(new java.math.BigDecimal(r.usedHours))
                      .isGreaterThanOrEqualTo(new java.math.BigDecimal("0.001"));
                });

        // The next month begins.
        clock.moveTo(resets);
        await().atMost(Duration.ofSeconds(30)).until(() -> running(client, "second"));
        BudgetStatus renewed =
            await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> status(client), s -> s != null && !month.equals(s.window));
        // (Not whether it is exhausted: "second" spends the new month's 3.6 GPU-seconds too.)
        assertThat(Instant.parse(renewed.windowStart)).isEqualTo(resets);

        // RunOnIdleCapacity: once "second" has spent the new month too, "idle" (train, over its
        // budget) still runs on the 3 GPUs nobody uses, marked; "within" (another LocalQueue,
        // within budget, same priority, a ClusterQueue that never preempts) needs 2 of them, and
        // "idle" is its first and only victim: "second" keeps running.
        client
            .resources(Budget.class)
            .withName("train-gpu")
            .edit(
                b -> {
                  b.getSpec().whenExhausted = BudgetWhenExhausted.RunOnIdleCapacity;
                  return b;
                });
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> status(client), s -> s != null && Boolean.TRUE.equals(s.exhausted));
        client.resource(ScenarioObjects.localQueue(NS, "other", "budget-cq")).create();
        client.resource(gpuJob("idle", "3")).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> running(client, "idle"));
        assertThat(condition(client, "idle", "OnIdleCapacity"))
            .get()
            .satisfies(
                c -> {
                  assertThat(c.status).isEqualTo("True");
                  assertThat(c.reason).isEqualTo("BudgetExhausted");
                  assertThat(c.message).contains("Budget train-gpu (LocalQueue budget/train)");
                });
        client.resource(gpuJob("within", "other", "2")).create();
        Condition preempted =
            await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> condition(client, "idle", "Preempted").orElse(null), c -> c != null);
        assertThat(preempted.reason).isEqualTo("OnIdleCapacity");
        await().atMost(Duration.ofSeconds(30)).until(() -> running(client, "within"));
        assertThat(running(client, "second")).isTrue();
        assertThat(condition(client, "second", "Preempted")).isEmpty();

        // Two targets: the API server refuses it, naming the rule's field.
        Budget both = budget("both", "1");
        both.getSpec().clusterQueue = "budget-cq";
        assertThatThrownBy(() -> client.resource(both).create())
            .isInstanceOf(KubernetesClientException.class)
            .hasMessageContaining("spec: Invalid value")
            .hasMessageContaining(
                "exactly one of localQueue, clusterQueue and costCentre must be set");
      } finally {
        operator.close();
      }
    }
  }

  private static Budget budget(String name, String hours) {
    return Budgets.named(name).localQueue(NS, "train").monthly("UTC").hours(GPU, hours).build();
  }

  private static BudgetStatus status(KubernetesClient client) {
    Budget b = client.resources(Budget.class).withName("train-gpu").get();
    return b == null ? null : b.getStatus();
  }

  private static Job gpuJob(String name, String gpus) {
    return gpuJob(name, "train", gpus);
  }

  private static Job gpuJob(String name, String queue, String gpus) {
    Job job = ScenarioObjects.job(NS, name, queue, 1, "100m");
    var resources = job.getSpec().getTemplate().getSpec().getContainers().get(0).getResources();
    resources.setRequests(Map.of(GPU, new Quantity(gpus)));
    resources.setLimits(Map.of(GPU, new Quantity(gpus)));
    return job;
  }

  private static Job job(KubernetesClient client, String name) {
    return client.batch().v1().jobs().inNamespace(NS).withName(name).get();
  }

  private static boolean running(KubernetesClient client, String name) {
    Job j = job(client, name);
    return j != null && Boolean.FALSE.equals(j.getSpec().getSuspend());
  }

  private static Optional<Condition> quotaReserved(KubernetesClient client, String job) {
    return condition(client, job, "QuotaReserved");
  }

  private static Optional<Condition> condition(KubernetesClient client, String job, String type) {
    return client.resources(Workload.class).inNamespace(NS).list().getItems().stream()
        .filter(
            w ->
                w.getMetadata().getOwnerReferences().stream()
                    .anyMatch(o -> o.getName().equals(job)))
        .filter(w -> w.getStatus() != null && w.getStatus().conditions != null)
        .flatMap(w -> w.getStatus().conditions.stream())
        .filter(c -> type.equals(c.type))
        .findFirst();
  }

  /** The budget train-gpu as the namespace's UsageReport of the month shows it, or null. */
  private static UsageReportStatus.BudgetUse reportedBudget(KubernetesClient client, String month) {
    UsageReport r =
        client
            .resources(UsageReport.class)
            .inNamespace(NS)
            .withName(UsageReport.nameFor(month))
            .get();
    if (r == null || r.getStatus() == null || r.getStatus().budgets == null) {
      return null;
    }
    return r.getStatus().budgets.stream()
        .filter(b -> b.name.equals("train-gpu"))
        .findFirst()
        .orElse(null);
  }

  /** Admission cycles the operator has run. */
  private static long cycles(BerthOperator operator) {
    var timer = operator.registry().find("berth_admission_cycle_duration_seconds").timer();
    return timer == null ? 0 : timer.count();
  }

  private static double gauge(BerthOperator operator, String name, String window) {
    Gauge g =
        operator
            .registry()
            .find(name)
            .tags("budget", "train-gpu", "resource", GPU, "window", window)
            .gauge();
    assertThat(g).as(name).isNotNull();
    return g.value();
  }
}
