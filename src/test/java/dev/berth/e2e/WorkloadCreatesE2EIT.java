package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.BerthOperator;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One Workload create per Job, on an API server of its own, even when the Job changes while its
 * Workload is being created, before the Workload's own event reaches the operator (as the Job
 * controller's first status write does). Each such change reconciles the Job again; a reconcile
 * that did not yet find the Workload it had created created it again, refused as AlreadyExists:
 * 3,901 refused creates for 10,000 Jobs in the KWOK scale benchmark.
 */
class WorkloadCreatesE2EIT {
  private static final String NS = "workload-creates";
  private static final int JOBS = 200;
  private static final int CHANGES = 5;

  private static TestApiServer.Cluster cluster;
  private static KubernetesClient admin;
  private static BerthOperator operator;

  @BeforeAll
  static void setUp() {
    cluster = TestApiServer.dedicated();
    admin = cluster.client();
    Namespaces.ensure(admin, "berth-system");
    Namespaces.ensure(admin, NS);
    admin.resource(ScenarioObjects.flavor("creates-flavor", Map.of())).create();
    admin
        .resource(ScenarioObjects.clusterQueue("creates-cq", "creates-flavor", "cpu", "4"))
        .create();
    admin.resource(ScenarioObjects.localQueue(NS, "lq", "creates-cq")).create();
    operator = RunningOperator.startNew(cluster.kubeconfig(), false);
    await().atMost(Duration.ofSeconds(60)).until(operator::isAdmitting);
  }

  @AfterAll
  static void tearDown() {
    if (operator != null) {
      operator.close();
    }
    cluster.close();
  }

  @Test
  void aJobThatChangesWhileItsWorkloadIsCreatedGetsOneCreate() throws Exception {
    long before = ApiServerRequests.count(admin, "POST", "workloads");
    // Submitted by 8 clients at once, as a team's pipeline does: the operator's Job and Workload
    // informers both have a backlog, and Job events overtake the Workloads' own.
    ExecutorService clients = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> submitted = new ArrayList<>();
      for (int i = 0; i < JOBS; i++) {
        String name = "job-" + i;
        submitted.add(clients.submit(() -> submitAndChange(name)));
      }
      for (Future<?> f : submitted) {
        f.get();
      }
    } finally {
      clients.shutdownNow();
    }
    await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () -> admin.resources(Workload.class).inNamespace(NS).list().getItems().size() == JOBS);
    // Settled: no create for 3 s, whatever reconciles the changes queued have run.
    long[] last = {-1};
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              long now = ApiServerRequests.count(admin, "POST", "workloads");
              boolean unchanged = now == last[0];
              last[0] = now;
              return unchanged;
            });
    assertThat(ApiServerRequests.count(admin, "POST", "workloads") - before)
        .as("Workload creates, refused ones included, for %d Jobs", JOBS)
        .isEqualTo(JOBS);
  }

  private static void submitAndChange(String name) {
    Job job = admin.resource(ScenarioObjects.job(NS, name, "lq", 1, "1")).create();
    // Changes right behind the create, each an event of the Job: some reach the operator after
    // its reconcile created the Workload and before the Workload's own event does.
    for (int c = 0; c < CHANGES; c++) {
      // A merge patch, without a resourceVersion: it never conflicts with the operator's writes.
      admin
          .resources(Job.class)
          .inNamespace(NS)
          .withName(job.getMetadata().getName())
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"metadata\":{\"annotations\":{\"test.berth.dev/change\":\"" + c + "\"}}}");
    }
  }
}
