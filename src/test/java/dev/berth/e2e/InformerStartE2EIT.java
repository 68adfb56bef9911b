package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.operator.BerthOperator;
import dev.berth.operator.OperatorConfig;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A replica whose first list of one kind fails (here: its identity may not list Workloads, as a
 * busy API server's timeout or a 429 would fail it) keeps running and retrying, and admits nothing
 * until every informer has listed: a state rebuilt without the Workloads that hold quota would
 * admit over it. Once the list succeeds, the replica rebuilds its state, sees the quota held, and
 * admits when it is freed. Before, JOSDK stopped the operator on the failed list, and every replica
 * started in its place failed the same way (seen at 10,000 Jobs on a busy API server, where a page
 * of 500 Workloads took over fabric8's 10 s). On a server of its own.
 */
class InformerStartE2EIT {
  private static final String OPERATOR_USER = "berth-informer-start-test";

  private static boolean running(KubernetesClient client, String job) {
    Job j = client.batch().v1().jobs().inNamespace("team").withName(job).get();
    return j != null && Boolean.FALSE.equals(j.getSpec().getSuspend());
  }

  @Test
  void aFailedFirstListIsRetriedAndNothingIsAdmittedBeforeEveryInformerHasListed()
      throws Exception {
    try (TestApiServer.Cluster cluster = TestApiServer.dedicated()) {
      KubernetesClient admin = cluster.client();
      Namespaces.ensure(admin, "berth-system");
      Namespaces.ensure(admin, "team");
      admin.resource(ScenarioObjects.flavor("start-flavor", Map.of())).create();
      admin.resource(ScenarioObjects.clusterQueue("start-cq", "start-flavor", "cpu", "2")).create();
      admin.resource(ScenarioObjects.localQueue("team", "lq", "start-cq")).create();

      // The whole quota is admitted by a replica with every right, which then stops.
      BerthOperator first = RunningOperator.startNew(cluster.kubeconfig(), true);
      try {
        admin.resource(ScenarioObjects.job("team", "holder", "lq", 1, "2")).create();
        await().atMost(Duration.ofSeconds(60)).until(() -> running(admin, "holder"));
      } finally {
        first.close();
      }

      admin.resource(operatorRole(admin, false)).create();
      admin
          .resource(
              new ClusterRoleBindingBuilder()
                  .withNewMetadata()
                  .withName(OPERATOR_USER)
                  .endMetadata()
                  .withNewRoleRef()
                  .withApiGroup("rbac.authorization.k8s.io")
                  .withKind("ClusterRole")
                  .withName(OPERATOR_USER)
                  .endRoleRef()
                  .addNewSubject()
                  .withApiGroup("rbac.authorization.k8s.io")
                  .withKind("User")
                  .withName(OPERATOR_USER)
                  .endSubject()
                  .build())
          .create();
      KubernetesClient restricted =
          new KubernetesClientBuilder()
              .withConfig(
                  new ConfigBuilder(Config.fromKubeconfig(cluster.kubeconfig()))
                      .withImpersonateUsername(OPERATOR_USER)
                      .build())
              .build();
      BerthOperator replica =
          BerthOperator.start(
              restricted,
              new OperatorConfig(
                  "berth-system",
                  true,
                  "berth-leader",
                  0,
                  false,
                  0,
                  "berth-operator",
                  false,
                  false));
      try {
        admin.resource(ScenarioObjects.job("team", "waiting", "lq", 1, "2")).create();
        await().atMost(Duration.ofSeconds(60)).until(replica::isLeading);
        // The Job and queue informers have listed; the Workload informer cannot. Before, JOSDK
        // stopped the operator here; a state rebuilt now would admit "waiting" next to "holder".
        await()
            .during(Duration.ofSeconds(15))
            .atMost(Duration.ofSeconds(30))
            .until(() -> replica.isLive() && !replica.isAdmitting() && !running(admin, "waiting"));

        admin.resource(operatorRole(admin, true)).update();
        await().atMost(Duration.ofSeconds(120)).until(replica::isAdmitting);
        assertThat(running(admin, "waiting"))
            .as("the rebuilt state holds the quota of the admitted Workload")
            .isFalse();

        Kubelet.complete(
            admin, admin.batch().v1().jobs().inNamespace("team").withName("holder").get());
        await().atMost(Duration.ofSeconds(60)).until(() -> running(admin, "waiting"));
        assertThat(replica.isLive()).isTrue();
      } finally {
        replica.close();
        restricted.close();
      }
    }
  }

  /**
   * Every right the operator uses, on every kind, except (unless {@code listWorkloads}) listing
   * Workloads.
   */
  private static ClusterRole operatorRole(KubernetesClient admin, boolean listWorkloads) {
    List<PolicyRule> rules = new ArrayList<>();
    rules.add(
        new PolicyRuleBuilder()
            .withApiGroups(
                "",
                "batch",
                "apps",
                "coordination.k8s.io",
                "apiextensions.k8s.io",
                "events.k8s.io",
                "authentication.k8s.io",
                "authorization.k8s.io",
                "jobset.x-k8s.io",
                "autoscaling.x-k8s.io")
            .withResources("*")
            .withVerbs("*")
            .build());
    List<String> berthKinds = new ArrayList<>();
    for (CustomResourceDefinition crd :
        admin.apiextensions().v1().customResourceDefinitions().list().getItems()) {
      if (crd.getSpec().getGroup().equals("berth.dev")) {
        String plural = crd.getSpec().getNames().getPlural();
        berthKinds.add(plural + "/status");
        if (!plural.equals("workloads")) {
          berthKinds.add(plural);
        }
      }
    }
    rules.add(
        new PolicyRuleBuilder()
            .withApiGroups("berth.dev")
            .withResources(berthKinds)
            .withVerbs("*")
            .build());
    List<String> workloadVerbs =
        new ArrayList<>(List.of("get", "watch", "create", "update", "patch", "delete"));
    if (listWorkloads) {
      workloadVerbs.add("list");
    }
    rules.add(
        new PolicyRuleBuilder()
            .withApiGroups("berth.dev")
            .withResources("workloads")
            .withVerbs(workloadVerbs)
            .build());
    return new ClusterRoleBuilder()
        .withNewMetadata()
        .withName(OPERATOR_USER)
        .endMetadata()
        .withRules(rules)
        .build();
  }
}
