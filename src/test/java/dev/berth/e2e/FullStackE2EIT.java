package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import dev.berth.operator.BerthOperator;
import dev.berth.webhook.WebhookRuntime;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator and the webhooks together, as in a cluster: a team member (alice) submits Jobs the
 * way she would with kubectl; only the operator may start them.
 */
class FullStackE2EIT {
  private static final String NS = "fullstack";
  private static TestApiServer.Cluster cluster;
  private static WebhookRuntime webhooks;
  private static BerthOperator operator;
  private static KubernetesClient admin;
  private static KubernetesClient alice;

  @BeforeAll
  static void setUp() throws Exception {
    cluster = TestApiServer.dedicated();
    admin = cluster.client();
    Namespaces.ensure(admin, "berth-system");
    Namespaces.ensure(admin, NS);
    admin
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName("alice-admin")
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "cluster-admin")
                .addNewSubject()
                .withKind("User")
                .withName("alice")
                .withApiGroup("rbac.authorization.k8s.io")
                .endSubject()
                .build())
        .create();
    webhooks = ServedWebhooks.start(admin);
    operator = RunningOperator.startNew(cluster.kubeconfig(), false);
    Config asAlice = Config.fromKubeconfig(cluster.kubeconfig());
    asAlice.setImpersonateUsername("alice");
    asAlice.setImpersonateGroups("system:authenticated");
    alice = new KubernetesClientBuilder().withConfig(asAlice).build();

    admin
        .resource(ScenarioObjects.flavor("fullstack-flavor", Map.of("pool", "fullstack")))
        .create();
    admin
        .resource(ScenarioObjects.clusterQueue("fullstack-cq", "fullstack-flavor", "cpu", "2"))
        .create();
    admin.resource(ScenarioObjects.localQueue(NS, "default", "fullstack-cq")).create();
    // The webhooks take a moment to be called by the API server after registration.
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () -> {
              Job probe = ScenarioObjects.job(NS, "probe", "default", 1, "1");
              probe.getSpec().setSuspend(false);
              Job stored = alice.resource(probe).dryRun().create();
              return Boolean.TRUE.equals(stored.getSpec().getSuspend());
            });
  }

  @AfterAll
  static void tearDown() {
    alice.close();
    operator.close();
    webhooks.close();
    cluster.close();
  }

  private static boolean running(String name) {
    Job job = admin.batch().v1().jobs().inNamespace(NS).withName(name).get();
    return job != null && Boolean.FALSE.equals(job.getSpec().getSuspend());
  }

  @Test
  void aTeamMembersJobIsSuspendedOnCreateQueuedByDefaultAndStartedOnlyByTheOperator() {
    Job first = ScenarioObjects.job(NS, "first", "default", 1, "2");
    first.getSpec().setSuspend(false);
    first.getMetadata().getLabels().remove(Berth.QUEUE_NAME_LABEL);
    Job stored = alice.resource(first).create();
    // Mutated: suspended, and given the namespace's default LocalQueue.
    assertThat(stored.getSpec().getSuspend()).isTrue();
    assertThat(stored.getMetadata().getLabels()).containsEntry(Berth.QUEUE_NAME_LABEL, "default");
    await().atMost(Duration.ofSeconds(30)).until(() -> running("first"));

    alice.resource(ScenarioObjects.job(NS, "second", "default", 1, "2")).create();
    // No quota for it: it stays suspended through the cycles its creation triggers.
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(3))
        .until(() -> !running("second"));
    // Starting it around the queue is refused.
    assertThatThrownBy(
            () ->
                alice
                    .batch()
                    .v1()
                    .jobs()
                    .inNamespace(NS)
                    .withName("second")
                    .edit(
                        j -> {
                          j.getSpec().setSuspend(false);
                          return j;
                        }))
        .hasMessageContaining("denied the request");
    assertThat(running("second")).isFalse();

    Kubelet.complete(admin, admin.batch().v1().jobs().inNamespace(NS).withName("first").get());
    await().atMost(Duration.ofSeconds(30)).until(() -> running("second"));
  }
}
