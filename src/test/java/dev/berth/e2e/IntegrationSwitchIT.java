package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.AdmissionCheck;
import dev.berth.api.v1beta1.AdmissionCheckSpec;
import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.ProvisioningRequestConfig;
import dev.berth.api.v1beta1.ProvisioningRequestConfigSpec;
import dev.berth.e2e.plane.ProvisioningRequestCrd;
import dev.berth.local.EmbeddedApiServer;
import dev.berth.operator.BerthOperator;
import dev.berth.operator.OperatorConfig;
import dev.berth.operator.integration.jobset.JobSet;
import dev.berth.webhook.WebhookRuntime;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The JobSet integration (and the built-in provisioning check's ProvisioningRequest controller)
 * switches on when its CRD is installed after the operator started, in the same operator, with no
 * restart, and on the Lease holder only: two replicas with leader election start on an API server
 * without the JobSet CRD, with the chart's webhooks registered (JobSet's among them, as the chart
 * renders them whatever is installed). Once the CRD is installed, a JobSet a user creates
 * unsuspended is suspended by the webhook, gets a Workload from the leader and is admitted; a
 * provisioning AdmissionCheck turns Active once the autoscaler's CRD is installed; the standby has
 * switched nothing on. When the leader stops, the standby takes the Lease, switches both on itself
 * and admits the next JobSet.
 */
class IntegrationSwitchIT {
  private static final String NAMESPACE = "team-late";

  @Test
  void aKindWhoseCrdIsInstalledLaterSwitchesOnInTheRunningLeader() throws Exception {
    try (EmbeddedApiServer server = EmbeddedApiServer.start()) {
      server.install(EmbeddedApiServer.berthCrds());
      KubernetesClient admin = server.client();
      Namespaces.ensure(admin, "berth-system");
      Namespaces.ensure(admin, NAMESPACE);
      AtomicInteger firstSwitched = new AtomicInteger();
      AtomicInteger secondSwitched = new AtomicInteger();
      try (WebhookRuntime webhooks = ServedWebhooks.start(admin);
          KubernetesClient firstClient = client(server);
          KubernetesClient secondClient = client(server);
          KubernetesClient member = member(server)) {
        BerthOperator first =
            BerthOperator.start(firstClient, leaderElected(), firstSwitched::incrementAndGet);
        BerthOperator second = null;
        boolean firstClosed = false;
        try {
          await().atMost(Duration.ofSeconds(30)).until(first::isLeading);
          second =
              BerthOperator.start(secondClient, leaderElected(), secondSwitched::incrementAndGet);
          assertThat(second.isLeading()).isFalse();
          admin.resource(ScenarioObjects.flavor("late-flavor", Map.of())).create();
          admin
              .resource(ScenarioObjects.clusterQueue("late-cq", "late-flavor", "cpu", "12"))
              .create();
          admin.resource(ScenarioObjects.localQueue(NAMESPACE, "lq", "late-cq")).create();
          assertThat(first.switchedOnAfterStart()).as("no JobSet CRD yet").isEmpty();

          server.install(List.of(EmbeddedApiServer.jobSetCrd()));
          JobSet created = createUnsuspended(member, "trainer");
          assertThat(created.getSpec().suspend).as("the webhook suspended it").isTrue();
          assertThat(created.getMetadata().getAnnotations())
              .containsKey(Berth.SUBMITTED_AT_ANNOTATION);
          await().atMost(Duration.ofSeconds(60)).until(() -> running(admin, "trainer"));
          assertThat(first.switchedOnAfterStart()).containsExactly("JobSet");
          assertThat(firstSwitched).as("switched on in the running replica").hasValue(1);
          assertThat(first.isAdmitting()).isTrue();
          assertThat(second.switchedOnAfterStart())
              .as("a standby runs no late controller")
              .isEmpty();
          assertThat(secondSwitched).hasValue(0);

          // The built-in provisioning check likewise: Active=False while the autoscaler's CRD is
          // missing, Active once it is installed, the ProvisioningRequest controller running.
          admin.resource(provisioningConfig()).create();
          admin.resource(provisioningCheck()).create();
          await()
              .atMost(Duration.ofSeconds(30))
              .until(
                  () -> active(admin), a -> a.filter(c -> c.message.contains("not")).isPresent());
          assertThat(active(admin).orElseThrow().status).isEqualTo("False");
          ProvisioningRequestCrd.install(admin);
          await()
              .atMost(Duration.ofSeconds(60))
              .until(() -> active(admin), a -> a.filter(c -> "True".equals(c.status)).isPresent());
          assertThat(first.switchedOnAfterStart()).containsExactly("JobSet", "ProvisioningRequest");
          assertThat(second.switchedOnAfterStart()).isEmpty();

          // The leader stops; the standby takes the Lease and switches JobSet on itself.
          first.close();
          firstClosed = true;
          createUnsuspended(member, "next");
          BerthOperator standby = second;
          await().atMost(Duration.ofSeconds(90)).until(() -> running(admin, "next"));
          assertThat(standby.isLeading()).isTrue();
          await()
              .atMost(Duration.ofSeconds(30))
              .until(
                  standby::switchedOnAfterStart,
                  on -> on.containsAll(List.of("JobSet", "ProvisioningRequest")));
          assertThat(secondSwitched).hasValue(2);
        } finally {
          if (second != null) {
            second.close();
          }
          if (!firstClosed) {
            first.close();
          }
        }
      }
    }
  }

  /**
   * A JobSet written as a user would, without {@code suspend}; retried while the API server does
   * not call the newly registered webhooks yet (it would be stored running).
   */
  private static JobSet createUnsuspended(KubernetesClient member, String name) {
    JobSet js = JobSetE2EIT.jobSet(NAMESPACE, name);
    js.getSpec().suspend = null;
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> Boolean.TRUE.equals(member.resource(js).dryRun().create().getSpec().suspend));
    return member.resource(js).create();
  }

  private static final String CHECK = "late-provisioning";

  private static ProvisioningRequestConfig provisioningConfig() {
    ProvisioningRequestConfig config = new ProvisioningRequestConfig();
    config.getMetadata().setName(CHECK);
    config.setSpec(
        new ProvisioningRequestConfigSpec("best-effort-atomic-scale-up.autoscaling.x-k8s.io"));
    return config;
  }

  private static AdmissionCheck provisioningCheck() {
    AdmissionCheck ac = new AdmissionCheck();
    ac.getMetadata().setName(CHECK);
    ac.setSpec(
        new AdmissionCheckSpec(
            ProvisioningRequestConfig.CONTROLLER_NAME,
            new AdmissionCheckSpec.Parameters(Berth.GROUP, ProvisioningRequestConfig.KIND, CHECK)));
    return ac;
  }

  /** The check's Active condition, once the operator has written one. */
  private static Optional<Condition> active(KubernetesClient admin) {
    AdmissionCheck ac = admin.resources(AdmissionCheck.class).withName(CHECK).get();
    return ac == null || ac.getStatus() == null || ac.getStatus().conditions == null
        ? Optional.empty()
        : ac.getStatus().conditions.stream().filter(c -> "Active".equals(c.type)).findFirst();
  }

  private static boolean running(KubernetesClient admin, String name) {
    JobSet js = admin.resources(JobSet.class).inNamespace(NAMESPACE).withName(name).get();
    return js != null && Boolean.FALSE.equals(js.getSpec().suspend);
  }

  private static KubernetesClient client(EmbeddedApiServer server) {
    return new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(server.kubeconfig()))
        .build();
  }

  /**
   * A team member: group {@code system:masters} (any rights without a binding to make), not the
   * operator's identity, so only the webhooks stand in its way.
   */
  private static KubernetesClient member(EmbeddedApiServer server) {
    Config config = Config.fromKubeconfig(server.kubeconfig());
    config.setImpersonateUsername("member");
    config.setImpersonateGroups("system:masters");
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /** Leader election on, as the chart runs two replicas; webhooks served by the test. */
  private static OperatorConfig leaderElected() {
    return new OperatorConfig(
        "berth-system", true, "berth-leader", 0, false, 0, "berth-operator", false, false);
  }
}
