package dev.berth.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.local.ControllerManager;
import dev.berth.local.EmbeddedApiServer;
import dev.berth.local.LocalIdentities;
import dev.berth.local.LoopbackWebhooks;
import dev.berth.webhook.WebhookRuntime;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.authentication.SelfSubjectReview;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Local mode's people on a real API server with a real kube-controller-manager: the admin's and the
 * team member's kubeconfigs work, neither is the operator, Berth's webhook stops both from starting
 * a managed Job, and the team member has exactly the chart's team roles.
 */
class LocalIdentitiesIT {
  private static final String TEAM = "team-llm";
  @TempDir static Path dir;
  private static EmbeddedApiServer apiServer;
  private static ControllerManager controllers;
  private static WebhookRuntime webhooks;
  private static LocalIdentities people;
  private static KubernetesClient admin;
  private static KubernetesClient member;

  @BeforeAll
  static void start() throws Exception {
    apiServer = EmbeddedApiServer.start();
    controllers = ControllerManager.start(apiServer.client(), apiServer.kubeconfig(), dir);
    apiServer.install(EmbeddedApiServer.berthCrds());
    KubernetesClient operator = apiServer.client();
    operator
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName("berth-system").endMetadata().build())
        .serverSideApply();
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    webhooks = LoopbackWebhooks.start(operator, "kubeapitest", port);
    people = LocalIdentities.create(operator, dir.resolve("kubeconfig"), TEAM);
    // The aggregated role of the chart is filled by the controller manager, asynchronously.
    controllers.awaitAggregated(operator, LocalIdentities.BATCH_USER_ROLE, 60);
    admin = client(people.adminKubeconfig());
    member = client(people.teamKubeconfig());
    operator
        .resource(
            Serialization.unmarshal(
                """
        apiVersion: berth.dev/v1beta1
        kind: LocalQueue
        metadata: {name: training, namespace: team-llm}
        spec: {clusterQueue: team-llm}
        """,
                GenericKubernetesResource.class))
        .serverSideApply();
    // Webhooks are active once a Job created through the API server comes back suspended.
    Awaitility.await("webhooks active")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                Boolean.TRUE.equals(
                    admin
                        .batch()
                        .v1()
                        .jobs()
                        .inNamespace(TEAM)
                        .resource(job("probe", null))
                        .dryRun()
                        .create()
                        .getSpec()
                        .getSuspend()));
  }

  @AfterAll
  static void stop() {
    if (webhooks != null) {
      webhooks.close();
    }
    if (controllers != null) {
      controllers.close();
    }
    if (apiServer != null) {
      apiServer.close();
    }
  }

  private static KubernetesClient client(Path kubeconfig) throws Exception {
    return new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
        .build();
  }

  private static Job job(String name, Boolean suspend) {
    return new JobBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(TEAM)
        .addToLabels("berth.dev/queue-name", "training")
        .endMetadata()
        .withNewSpec()
        .withSuspend(suspend)
        .withNewTemplate()
        .withNewSpec()
        .withRestartPolicy("Never")
        .addNewContainer()
        .withName("main")
        .withImage("busybox")
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  private static String whoami(KubernetesClient client) {
    return client
        .resource(new SelfSubjectReview())
        .create()
        .getStatus()
        .getUserInfo()
        .getUsername();
  }

  @Test
  void theChartsUserRolesAreWhatLocalModeApplies() throws Exception {
    String rendered =
        HelmCli.template("berth", "berth-system", "--show-only", "templates/user-roles.yaml");
    try (InputStream in = LocalIdentities.class.getResourceAsStream("/local/user-roles.yaml")) {
      String copy = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertThat(copy)
          .as(
              "operator/src/main/resources/local/user-roles.yaml; regenerate with"
                  + " the helm command in its header")
          .endsWith(rendered);
    }
  }

  @Test
  void neitherPersonIsTheOperator() {
    assertThat(whoami(admin))
        .isEqualTo(LocalIdentities.userOf("berth-system", LocalIdentities.ADMIN));
    assertThat(whoami(member)).isEqualTo(LocalIdentities.userOf(TEAM, LocalIdentities.TEAM_MEMBER));
    assertThat(whoami(apiServer.client())).isEqualTo("kubeapitest");
    assertThat(people.teamKubeconfig().toFile().canRead()).isTrue();
  }

  @Test
  void theAdminCannotStartAManagedJobAroundTheQueue() {
    Job created =
        admin.batch().v1().jobs().inNamespace(TEAM).resource(job("admin-job", false)).create();
    assertThat(created.getSpec().getSuspend()).isTrue();
    assertThatThrownBy(
            () ->
                admin
                    .batch()
                    .v1()
                    .jobs()
                    .inNamespace(TEAM)
                    .withName("admin-job")
                    .edit(j -> new JobBuilder(j).editSpec().withSuspend(false).endSpec().build()))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("denied the request")
        .hasMessageContaining("spec.suspend");
    assertThat(
            apiServer
                .client()
                .batch()
                .v1()
                .jobs()
                .inNamespace(TEAM)
                .withName("admin-job")
                .get()
                .getSpec()
                .getSuspend())
        .isTrue();
  }

  @Test
  void theTeamMemberHasTheChartsTeamRolesInItsNamespaceOnly() {
    Job created =
        member.batch().v1().jobs().inNamespace(TEAM).resource(job("member-job", null)).create();
    assertThat(created.getSpec().getSuspend()).isTrue();
    assertThatThrownBy(
            () ->
                member
                    .batch()
                    .v1()
                    .jobs()
                    .inNamespace(TEAM)
                    .withName("member-job")
                    .edit(j -> new JobBuilder(j).editSpec().withSuspend(false).endSpec().build()))
        .hasMessageContaining("denied the request")
        .hasMessageContaining("spec.suspend");
    // berth-batch-user: reads LocalQueues and Workloads of its namespace.
    assertThat(
            member
                .genericKubernetesResources("berth.dev/v1beta1", "LocalQueue")
                .inNamespace(TEAM)
                .list()
                .getItems())
        .extracting(q -> q.getMetadata().getName())
        .containsExactly("training");
    assertThat(
            member
                .genericKubernetesResources("berth.dev/v1beta1", "Workload")
                .inNamespace(TEAM)
                .list()
                .getItems())
        .isEmpty();
    // Nothing outside it, no quota configuration, no admission.
    assertForbidden(() -> member.batch().v1().jobs().inNamespace("default").list());
    assertForbidden(
        () ->
            member
                .genericKubernetesResources("berth.dev/v1beta1", "ClusterQueue")
                .resource(
                    Serialization.unmarshal(
                        """
            apiVersion: berth.dev/v1beta1
            kind: ClusterQueue
            metadata: {name: mine}
            spec: {namespaceSelector: {}}
            """,
                        GenericKubernetesResource.class))
                .create());
    assertForbidden(
        () ->
            member
                .genericKubernetesResources("berth.dev/v1beta1", "LocalQueue")
                .inNamespace(TEAM)
                .withName("training")
                .delete());
  }

  private static void assertForbidden(Runnable request) {
    assertThatThrownBy(request::run)
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
  }
}
