package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.api.v1beta1.WorkloadPriorityClass;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Preemption end to end: the victim is stopped and requeued, then the preemptor starts. */
class PreemptionE2EIT {

  private static void priorityClass(Scenario s, String name, int value) {
    WorkloadPriorityClass wpc = new WorkloadPriorityClass();
    wpc.getMetadata().setName(name);
    wpc.setValue(value);
    s.client.resource(wpc).serverSideApply();
  }

  private static Job job(Scenario s, String name, String priorityClass) {
    Job job = ScenarioObjects.job(s.namespace, name, "lq", 1, "2");
    job.getMetadata().getLabels().put("berth.dev/priority-class", priorityClass);
    return job;
  }

  /**
   * Cohort {@code name}: a lender with 2 cpu that reclaims (LocalQueue "own") and a borrower with
   * none (LocalQueue "lq"), whose workloads run {@code borrowerMinimumRuntime} seconds (or null)
   * before another queue may preempt them.
   */
  private static void lenderAndBorrower(Scenario s, String name, Integer borrowerMinimumRuntime) {
    lenderAndBorrower(s, name, borrowerMinimumRuntime, null);
  }

  private static void lenderAndBorrower(
      Scenario s, String name, Integer borrowerMinimumRuntime, Integer borrowerBackoff) {
    s.client.resource(ScenarioObjects.flavor(name + "-flavor", Map.of())).create();
    ClusterQueue lender =
        ScenarioObjects.clusterQueue(name + "-lender", name + "-flavor", "cpu", "2");
    lender.getSpec().cohortName = name;
    lender.getSpec().preemption = new ClusterQueuePreemption();
    lender.getSpec().preemption.reclaimWithinCohort =
        ClusterQueuePreemption.ReclaimWithinCohort.Any;
    s.client.resource(lender).create();
    ClusterQueue borrower =
        ScenarioObjects.clusterQueue(name + "-borrower", name + "-flavor", "cpu", "0");
    borrower.getSpec().cohortName = name;
    borrower.getSpec().preemption = new ClusterQueuePreemption();
    borrower.getSpec().preemption.minimumRuntimeSeconds = borrowerMinimumRuntime;
    borrower.getSpec().preemption.borrowBackoffAfterReclaimSeconds = borrowerBackoff;
    s.client.resource(borrower).create();
    s.client.resource(ScenarioObjects.localQueue(s.namespace, "lq", name + "-borrower")).create();
    s.client.resource(ScenarioObjects.localQueue(s.namespace, "own", name + "-lender")).create();
  }

  @Test
  void aHigherPriorityJobPreemptsWithinItsClusterQueue() {
    Scenario s = new Scenario("preempt-cq");
    priorityClass(s, "e2e-low", 10);
    priorityClass(s, "e2e-high", 1000);
    s.client.resource(ScenarioObjects.flavor("preempt-cq-flavor", Map.of())).create();
    ClusterQueue cq = ScenarioObjects.clusterQueue("preempt-cq", "preempt-cq-flavor", "cpu", "2");
    cq.getSpec().preemption = new ClusterQueuePreemption();
    cq.getSpec().preemption.withinClusterQueue =
        ClusterQueuePreemption.WithinClusterQueue.LowerPriority;
    s.client.resource(cq).create();
    s.client.resource(ScenarioObjects.localQueue(s.namespace, "lq", "preempt-cq")).create();

    s.submit(job(s, "sweep", "e2e-low"));
    s.awaitRunning("sweep");
    s.submit(job(s, "urgent", "e2e-high"));

    s.awaitRunning("urgent");
    assertThat(s.running("sweep")).isFalse();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              var preempted = s.condition("sweep", "Preempted").orElseThrow();
              assertThat(preempted.reason).isEqualTo("InClusterQueue");
              assertThat(preempted.message).contains("urgent");
              assertThat(s.condition("sweep", "Requeued").orElseThrow().status).isEqualTo("True");
              assertThat(s.condition("sweep", "QuotaReserved").orElseThrow().status)
                  .isEqualTo("False");
            });
  }

  @Test
  void aLenderReclaimsItsQuotaFromABorrower() {
    Scenario s = new Scenario("reclaim");
    lenderAndBorrower(s, "reclaim", null);

    s.submit(ScenarioObjects.job(s.namespace, "borrowed", "lq", 1, "2"));
    s.awaitRunning("borrowed");
    s.submit(ScenarioObjects.job(s.namespace, "owner", "own", 1, "2"));

    s.awaitRunning("owner");
    assertThat(s.running("borrowed")).isFalse();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(s.condition("borrowed", "Preempted").orElseThrow().reason)
                    .isEqualTo("InCohortReclamation"));
  }

  @Test
  void aBorrowerRunsItsMinimumRuntimeBeforeTheLenderReclaims() {
    Scenario s = new Scenario("min-runtime");
    // The protection is the victim's: the borrower's workloads run 8 s before a reclaim.
    lenderAndBorrower(s, "min-runtime", 8);

    s.submit(ScenarioObjects.job(s.namespace, "borrowed", "lq", 1, "2"));
    s.awaitRunning("borrowed");
    Instant reserved =
        Instant.parse(s.condition("borrowed", "QuotaReserved").orElseThrow().lastTransitionTime);
    s.submit(ScenarioObjects.job(s.namespace, "owner", "own", 1, "2"));

    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(s.condition("owner", "QuotaReserved"))
                    .hasValueSatisfying(
                        c ->
                            assertThat(c.message)
                                .containsPattern(
                                    "run for their minimum runtime, the first for \\d+s more")));

    // Nothing else happens in the cluster: the operator wakes when the 8 s are over.
    s.awaitRunning("owner");
    assertThat(s.running("borrowed")).isFalse();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(s.condition("borrowed", "Preempted")).isPresent();
              var preempted = s.condition("borrowed", "Preempted").orElseThrow();
              assertThat(preempted.reason).isEqualTo("InCohortReclamation");
              // Condition times have whole seconds: 8 s less the second lost to truncation.
              assertThat(Duration.between(reserved, Instant.parse(preempted.lastTransitionTime)))
                  .isGreaterThanOrEqualTo(Duration.ofSeconds(7));
            });
  }

  @Test
  void aReclaimedBorrowerWaitsOutItsBackoffBeforeBorrowingAgain() {
    Scenario s = new Scenario("reborrow");
    // The pause is the victim's queue's: after the reclaim it borrows nothing for 15 s (long
    // enough for the lender's Job to start and finish inside it on a loaded machine).
    lenderAndBorrower(s, "reborrow", null, 15);

    s.submit(ScenarioObjects.job(s.namespace, "borrowed", "lq", 1, "2"));
    s.awaitRunning("borrowed");
    s.submit(ScenarioObjects.job(s.namespace, "owner", "own", 1, "2"));
    s.awaitRunning("owner");
    Instant reclaimed =
        Instant.parse(s.condition("borrowed", "Preempted").orElseThrow().lastTransitionTime);

    // The lender is done at once: its quota is free, and the borrower's Job is next in line.
    Kubelet.complete(
        s.client, s.client.batch().v1().jobs().inNamespace(s.namespace).withName("owner").get());
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(s.condition("borrowed", "QuotaReserved"))
                    .hasValueSatisfying(
                        c -> {
                          assertThat(c.status).isEqualTo("False");
                          assertThat(c.message)
                              .containsPattern(
                                  "borrows nothing for \\d+s more: quota it borrowed was just"
                                      + " reclaimed");
                        }));

    // Nothing else happens in the cluster: the operator wakes when the 15 s are over.
    s.awaitRunning("borrowed");
    Instant again =
        Instant.parse(s.condition("borrowed", "QuotaReserved").orElseThrow().lastTransitionTime);
    // Condition times have whole seconds: 15 s less the second lost to truncation.
    assertThat(Duration.between(reclaimed, again)).isGreaterThanOrEqualTo(Duration.ofSeconds(14));
  }

  @Test
  void aQueueOverItsPreemptionLimitWaitsForTheWindowToMoveOn() {
    Scenario s = new Scenario("preempt-limit");
    priorityClass(s, "e2e-low", 10);
    priorityClass(s, "e2e-high", 1000);
    s.client.resource(ScenarioObjects.flavor("preempt-limit-flavor", Map.of())).create();
    ClusterQueue cq =
        ScenarioObjects.clusterQueue("preempt-limit", "preempt-limit-flavor", "cpu", "4");
    cq.getSpec().preemption = new ClusterQueuePreemption();
    cq.getSpec().preemption.withinClusterQueue =
        ClusterQueuePreemption.WithinClusterQueue.LowerPriority;
    // One preemption per 30 s: long enough to see the second preemptor wait on a loaded machine
    // (15 s was not: with both cores taken, stopping the first victim and running its preemptor
    // took the whole window, and the second preemptor found it moved on).
    cq.getSpec().preemption.maxPreemptions = new ClusterQueuePreemption.MaxPreemptions();
    cq.getSpec().preemption.maxPreemptions.count = 1;
    cq.getSpec().preemption.maxPreemptions.windowSeconds = 30;
    s.client.resource(cq).create();
    s.client.resource(ScenarioObjects.localQueue(s.namespace, "lq", "preempt-limit")).create();

    s.submit(job(s, "sweep-a", "e2e-low"));
    s.submit(job(s, "sweep-b", "e2e-low"));
    s.awaitRunning("sweep-a", "sweep-b");
    s.submit(job(s, "urgent-1", "e2e-high"));
    s.awaitRunning("urgent-1");
    Instant first =
        java.util.stream.Stream.of("sweep-a", "sweep-b")
            .map(name -> s.condition(name, "Preempted"))
            .flatMap(java.util.Optional::stream)
            .map(c -> Instant.parse(c.lastTransitionTime))
            .findFirst()
            .orElseThrow();

    s.submit(job(s, "urgent-2", "e2e-high"));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(s.condition("urgent-2", "QuotaReserved"))
                    .hasValueSatisfying(
                        c ->
                            assertThat(c.message)
                                .containsPattern(
                                    "ClusterQueue preempt-limit preempted 1 workload\\(s\\) in the"
                                        + " last 30s \\(preemption.maxPreemptions 1 per 30s\\); it"
                                        + " may preempt 1 more in \\d+s")));
    assertThat(s.running("sweep-a") && s.running("sweep-b")).isFalse();
    assertThat(s.running("sweep-a") || s.running("sweep-b")).isTrue();

    // Nothing else happens in the cluster: the operator wakes when the window has moved on.
    s.awaitRunning("urgent-2");
    Instant second =
        Instant.parse(s.condition("urgent-2", "QuotaReserved").orElseThrow().lastTransitionTime);
    // Condition times have whole seconds: 30 s less the second lost to truncation.
    assertThat(Duration.between(first, second)).isGreaterThanOrEqualTo(Duration.ofSeconds(29));
  }
}
