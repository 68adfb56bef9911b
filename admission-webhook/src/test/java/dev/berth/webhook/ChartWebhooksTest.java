package dev.berth.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.api.v1beta1.Berth;
import dev.berth.webhook.integration.Framework;
import dev.berth.webhook.server.AdmissionHandler;
import dev.berth.webhook.server.BerthWebhooks;
import dev.berth.webhook.server.ValidatingHandler;
import dev.berth.webhook.server.WebhookPaths;
import dev.berth.webhook.server.WorkloadStatusHandler;
import dev.berth.webhook.validation.QueueScope;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MatchCondition;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperations;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The chart's webhooks, rendered by the real helm from helm/berth (the one list every installation
 * and test registers): the policies docs/webhooks.md promises, checked for every combination of the
 * chart's {@code webhooks.*} values its schema allows, with JobSet's integration on and off.
 */
class ChartWebhooksTest {
  private static final Map<String, AdmissionHandler> ROUTES =
      BerthWebhooks.routes("operator", QueueScope.NONE);
  private static HelmChart chart;
  private static ChartWebhooks defaults;

  @BeforeAll
  static void render() {
    chart = HelmChart.locate();
    defaults = ChartWebhooks.render(chart, ChartWebhooks.NAMESPACE);
  }

  /** One webhook of either configuration, reduced to what the checks below look at. */
  record Hook(
      String name,
      boolean mutating,
      WebhookClientConfig clientConfig,
      List<RuleWithOperations> rules,
      String failurePolicy,
      Integer timeoutSeconds,
      LabelSelector namespaceSelector,
      LabelSelector objectSelector,
      List<MatchCondition> matchConditions,
      String sideEffects,
      List<String> admissionReviewVersions,
      String matchPolicy) {
    String path() {
      return clientConfig.getService() != null
          ? clientConfig.getService().getPath()
          : clientConfig.getUrl().replaceFirst("^https://[^/]+", "");
    }

    List<String> groups() {
      return rules.stream().flatMap(r -> r.getApiGroups().stream()).toList();
    }

    List<String> resources() {
      return rules.stream().flatMap(r -> r.getResources().stream()).toList();
    }

    List<String> operations() {
      return rules.stream().flatMap(r -> r.getOperations().stream()).toList();
    }

    boolean berthKind() {
      return groups().equals(List.of(Berth.GROUP));
    }
  }

  static Map<String, Hook> hooks(ChartWebhooks webhooks) {
    Map<String, Hook> hooks = new LinkedHashMap<>();
    for (ValidatingWebhook w : webhooks.validating().getWebhooks()) {
      Hook hook =
          new Hook(
              w.getName(),
              false,
              w.getClientConfig(),
              w.getRules(),
              w.getFailurePolicy(),
              w.getTimeoutSeconds(),
              w.getNamespaceSelector(),
              w.getObjectSelector(),
              w.getMatchConditions(),
              w.getSideEffects(),
              w.getAdmissionReviewVersions(),
              w.getMatchPolicy());
      assertThat(hooks.put(hook.name(), hook)).as("duplicate %s", hook.name()).isNull();
    }
    for (MutatingWebhook w : webhooks.mutating().getWebhooks()) {
      Hook hook =
          new Hook(
              w.getName(),
              true,
              w.getClientConfig(),
              w.getRules(),
              w.getFailurePolicy(),
              w.getTimeoutSeconds(),
              w.getNamespaceSelector(),
              w.getObjectSelector(),
              w.getMatchConditions(),
              w.getSideEffects(),
              w.getAdmissionReviewVersions(),
              w.getMatchPolicy());
      assertThat(hooks.put(hook.name(), hook)).as("duplicate %s", hook.name()).isNull();
      assertThat(w.getReinvocationPolicy()).as(hook.name()).isEqualTo("Never");
    }
    return hooks;
  }

  @Test
  void theConfigurationsHaveTheNamesTheCaBundleIsPatchedInto() {
    assertThat(defaults.validating().getMetadata().getName())
        .isEqualTo(ChartWebhooks.VALIDATING_NAME);
    assertThat(defaults.mutating().getMetadata().getName()).isEqualTo(ChartWebhooks.MUTATING_NAME);
    WebhookSettings settings = WebhookSettings.fromEnvironment(Map.of());
    assertThat(settings.validatingConfigurations()).containsExactly(ChartWebhooks.VALIDATING_NAME);
    assertThat(settings.mutatingConfigurations()).containsExactly(ChartWebhooks.MUTATING_NAME);
    assertThat(settings.namespace()).isEqualTo(ChartWebhooks.NAMESPACE);
  }

  /** With every kind on: the serving kinds are off by default, and their paths with them. */
  @Test
  void everyPathTheServerServesIsRegisteredAndNothingElse() {
    Set<String> registered = new HashSet<>();
    ChartWebhooks every =
        ChartWebhooks.render(
            chart,
            ChartWebhooks.NAMESPACE,
            "integrations.frameworks={" + String.join(",", Framework.frameworkNames()) + "}");
    hooks(every).values().forEach(h -> registered.add(h.path()));
    // The one path every kind on still leaves out: compatibility.kueueLabels's.
    hooks(ChartWebhooks.render(chart, "ops", "compatibility.kueueLabels=true").onLoopback(9443))
        .values()
        .forEach(h -> registered.add(h.path()));
    assertThat(registered).containsExactlyInAnyOrderElementsOf(ROUTES.keySet());
  }

  /**
   * The bug this class exists for: the chart sent workloads/status to the generic Workload
   * validator, which lets every subresource request through, so the status guard never ran.
   */
  @Test
  void workloadStatusGoesToTheStatusGuardAndFailsClosed() {
    Map<String, Hook> hooks = hooks(defaults);
    Hook status = hooks.get("vworkload-status.berth.dev");
    assertThat(status).isNotNull();
    assertThat(status.path()).isEqualTo(WebhookPaths.VALIDATE_WORKLOAD_STATUS);
    assertThat(ROUTES.get(status.path())).isInstanceOf(WorkloadStatusHandler.class);
    assertThat(status.resources()).containsExactly("workloads/status");
    assertThat(status.operations()).containsExactly("UPDATE");
    assertThat(status.failurePolicy()).isEqualTo("Fail");
    // Every namespace: an excluded one would be a place to forge an admission.
    assertThat(status.namespaceSelector()).isNull();
    assertThat(status.objectSelector()).isNull();
    assertThat(status.matchConditions()).isNullOrEmpty();
    assertThat(hooks.get("vworkload.berth.dev").resources()).containsExactly("workloads");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("webhookValues")
  void everyCombinationOfTheWebhookValuesRendersTheDocumentedPolicies(
      String name, List<String> values) {
    Map<String, String> set = new LinkedHashMap<>();
    values.forEach(v -> set.put(v.substring(0, v.indexOf('=')), v.substring(v.indexOf('=') + 1)));
    boolean jobSet = !"{batch/job}".equals(set.get("integrations.frameworks"));
    boolean defaultQueue = !"false".equals(set.get("webhooks.defaultQueue.enabled"));
    boolean podGates = !"false".equals(set.get("webhooks.podTopologyGates.enabled"));
    boolean kueueLabels = "true".equals(set.get("compatibility.kueueLabels"));
    int berthTimeout = Integer.parseInt(set.getOrDefault("webhooks.timeoutSeconds", "10"));
    int jobTimeout = Integer.parseInt(set.getOrDefault("webhooks.jobTimeoutSeconds", "5"));
    String namespace = "ops";

    ChartWebhooks rendered =
        ChartWebhooks.render(chart, namespace, values.toArray(String[]::new)).onLoopback(9443);
    Map<String, Hook> hooks = hooks(rendered);

    List<String> expected =
        new ArrayList<>(
            List.of(
                "vclusterqueue",
                "vcohort",
                "vresourceflavor",
                "vlocalqueue",
                "vworkload",
                "vworkload-status",
                "vworkloadpriorityclass",
                "vtopology",
                "vadmissioncheck",
                "vprovisioningrequestconfig",
                "vbudget",
                "vjob",
                "vcronjob",
                "vpod-queue",
                "mclusterqueue",
                "mlocalqueue",
                "mworkload",
                "mjob",
                "mresourceclaim-flavor"));
    if (jobSet) {
      expected.addAll(List.of("vjobset", "mjobset"));
    }
    if (defaultQueue) {
      expected.add("mjob-default-queue");
      if (jobSet) {
        expected.add("mjobset-default-queue");
      }
    }
    if (podGates) {
      expected.addAll(List.of("vpod", "mpod"));
    }
    if (kueueLabels) {
      expected.add("mkueue-labels");
    }
    assertThat(hooks.keySet())
        .containsExactlyInAnyOrderElementsOf(expected.stream().map(n -> n + ".berth.dev").toList());

    for (Hook hook : hooks.values()) {
      String n = hook.name();
      assertThat(hook.sideEffects()).as(n).isEqualTo("None");
      assertThat(hook.admissionReviewVersions()).as(n).containsExactly("v1");
      assertThat(hook.matchPolicy()).as(n).isEqualTo("Equivalent");
      // Re-pointed at the loopback URL with the chart's path, which the server serves.
      assertThat(hook.clientConfig().getService()).as(n).isNull();
      assertThat(hook.clientConfig().getUrl()).as(n).startsWith("https://127.0.0.1:9443/");
      AdmissionHandler handler = ROUTES.get(hook.path());
      assertThat(handler).as("%s -> %s is served", n, hook.path()).isNotNull();
      // A validator that lets subresources through must never be the one registered for one.
      if (handler instanceof ValidatingHandler<?>) {
        assertThat(hook.resources()).as(n).noneMatch(r -> r.contains("/"));
      }
      assertThat(hook.failurePolicy())
          .as(n)
          .isEqualTo(n.endsWith("-default-queue.berth.dev") ? "Ignore" : "Fail");
      if (hook.berthKind()) {
        assertThat(hook.timeoutSeconds()).as(n).isEqualTo(berthTimeout);
        assertThat(hook.namespaceSelector()).as(n).isNull();
        assertThat(hook.objectSelector()).as(n).isNull();
        if (hook.mutating() || !n.equals("vworkload-status.berth.dev")) {
          assertThat(hook.operations()).as(n).containsExactly("CREATE", "UPDATE");
        }
      } else {
        assertThat(hook.timeoutSeconds()).as(n).isEqualTo(jobTimeout);
        assertThat(excluded(hook))
            .as(n)
            .containsExactlyInAnyOrder(namespace, "kube-system", "kube-node-lease", "kube-public");
      }
    }
    for (String job : List.of("vjob", "vjobset")) {
      Hook hook = hooks.get(job + ".berth.dev");
      if (hook != null) {
        // Which namespaces Berth manages follows the ClusterQueues: no selector could say it.
        assertThat(hook.objectSelector()).as(job).isNull();
        assertThat(hook.operations()).containsExactly("CREATE", "UPDATE");
      }
    }
    for (String job : List.of("mjob", "mjobset")) {
      Hook managed = hooks.get(job + ".berth.dev");
      if (managed != null) {
        assertThat(managed.operations()).containsExactly("CREATE");
        assertThat(selector(managed.objectSelector()))
            .containsExactly(Berth.QUEUE_NAME_LABEL + " Exists");
      }
      Hook unmanaged = hooks.get(job + "-default-queue.berth.dev");
      if (unmanaged != null) {
        assertThat(unmanaged.path()).isEqualTo(managed.path());
        assertThat(selector(unmanaged.objectSelector()))
            .containsExactly(Berth.QUEUE_NAME_LABEL + " DoesNotExist");
      }
    }
    if (kueueLabels) {
      // Kueue's labels become Berth's before any other webhook matches its selector on them.
      assertThat(rendered.mutating().getWebhooks().get(0).getName())
          .isEqualTo("mkueue-labels.berth.dev");
      Hook copy = hooks.get("mkueue-labels.berth.dev");
      assertThat(copy.path()).isEqualTo(WebhookPaths.MUTATE_KUEUE_LABELS);
      assertThat(copy.operations()).containsOnly("CREATE");
      assertThat(copy.resources())
          .containsExactlyInAnyOrderElementsOf(
              jobSet ? List.of("jobs", "jobsets", "cronjobs") : List.of("jobs", "cronjobs"));
      assertThat(selector(copy.objectSelector()))
          .containsExactly("kueue.x-k8s.io/queue-name Exists");
    }
    // The pod queue rule: every pod created outside the excluded namespaces, whatever its labels
    // (a bare pod carries nothing to select on), on the pod path, failing closed.
    Hook podQueue = hooks.get("vpod-queue.berth.dev");
    assertThat(podQueue.path()).isEqualTo(WebhookPaths.VALIDATE_POD);
    assertThat(podQueue.operations()).containsExactly("CREATE");
    assertThat(podQueue.resources()).containsExactly("pods");
    assertThat(podQueue.objectSelector()).isNull();
    // Pods that ask for no resources hold no quota: they never reach Berth.
    assertThat(podQueue.matchConditions())
        .singleElement()
        .satisfies(
            c ->
                assertThat(c.getExpression())
                    .contains("object.spec.containers.exists(")
                    .contains("object.spec.initContainers.exists(")
                    .contains("has(object.spec.resources)")
                    .contains("has(object.spec.overhead)")
                    // DRA claims hold devices without any request (docs/dra.md).
                    .contains("has(object.spec.resourceClaims)"));
    Hook cronJobs = hooks.get("vcronjob.berth.dev");
    assertThat(cronJobs.path()).isEqualTo(WebhookPaths.VALIDATE_CRONJOB);
    assertThat(cronJobs.operations()).containsExactly("CREATE", "UPDATE");
    assertThat(cronJobs.resources()).containsExactly("cronjobs");
    assertThat(cronJobs.objectSelector()).isNull();
    if (podGates) {
      Hook gate = hooks.get("mpod.berth.dev");
      assertThat(gate.operations()).containsExactly("CREATE");
      assertThat(gate.resources()).containsExactly("pods");
      Hook guard = hooks.get("vpod.berth.dev");
      assertThat(guard.operations()).containsExactly("UPDATE");
      for (Hook pod : List.of(gate, guard)) {
        assertThat(selector(pod.objectSelector()))
            .as(pod.name())
            .containsExactly(Berth.PODSET_LABEL + " Exists");
      }
      // Only pods still behind Berth's gate reach the guard (and fail closed).
      assertThat(guard.matchConditions())
          .singleElement()
          .satisfies(
              c ->
                  assertThat(c.getExpression())
                      .startsWith("has(oldObject.spec.schedulingGates)")
                      .contains("g.name == '" + Berth.TOPOLOGY_SCHEDULING_GATE + "'"));
    }
  }

  /**
   * Each combination of the three switches, the timeouts at both ends of their range, and the
   * selectors set: every value of {@code webhooks.*} the schema allows, in 16 renders.
   */
  static Stream<Arguments> webhookValues() {
    List<Arguments> all = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      List<String> values = new ArrayList<>();
      values.add(
          "integrations.frameworks="
              + ((i & 1) == 0 ? "{batch/job,jobset.x-k8s.io/jobset}" : "{batch/job}"));
      values.add("webhooks.defaultQueue.enabled=" + ((i & 2) == 0));
      values.add("compatibility.kueueLabels=" + ((i & 2) != 0));
      values.add("webhooks.podTopologyGates.enabled=" + ((i & 4) == 0));
      all.add(Arguments.of(String.join(", ", values), values));
      List<String> bounds = new ArrayList<>(values);
      bounds.add("webhooks.timeoutSeconds=" + ((i & 1) == 0 ? 1 : 30));
      bounds.add("webhooks.jobTimeoutSeconds=" + ((i & 1) == 0 ? 30 : 1));
      bounds.add("webhooks.excludedNamespaces={kube-system,kube-node-lease,kube-public}");
      bounds.add("webhooks.defaultQueue.namespaceSelector.matchLabels.berth\\.dev/default=on");
      all.add(Arguments.of(String.join(", ", bounds), bounds));
    }
    return all.stream();
  }

  @Test
  void theDefaultQueueSelectorIsAndedWithTheExclusions() {
    Hook hook =
        hooks(
                ChartWebhooks.render(
                    chart,
                    "ops",
                    "webhooks.defaultQueue.namespaceSelector.matchLabels.team=ml",
                    "webhooks.defaultQueue.namespaceSelector.matchExpressions[0].key=tier",
                    "webhooks.defaultQueue.namespaceSelector.matchExpressions[0].operator=Exists"))
            .get("mjob-default-queue.berth.dev");
    assertThat(hook.namespaceSelector().getMatchLabels()).containsExactly(Map.entry("team", "ml"));
    assertThat(selector(hook.namespaceSelector()))
        .containsExactly("kubernetes.io/metadata.name NotIn", "tier Exists");
  }

  @Test
  void valuesTheSchemaRefusesAreRefusedWithTheirName() {
    for (String value :
        List.of(
            "webhooks.timeoutSeconds=0",
            "webhooks.timeoutSeconds=31",
            "webhooks.jobTimeoutSeconds=0",
            "webhooks.jobTimeoutSeconds=31")) {
      assertThatThrownBy(() -> ChartWebhooks.render(chart, "ops", value))
          .as(value)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(value.substring("webhooks.".length(), value.indexOf('=')));
    }
    assertThatThrownBy(() -> ChartWebhooks.render(chart, "ops", "webhooks.timeoutSecond=5"))
        .hasMessageContaining("timeoutSecond");
  }

  @Test
  void repointingKeepsEveryOtherFieldAndAddsTheBundle() {
    ChartWebhooks loopback = defaults.onLoopback(1234).withCaBundle("PEM");
    Map<String, Hook> before = hooks(defaults);
    Map<String, Hook> after = hooks(loopback);
    assertThat(after.keySet()).containsExactlyElementsOf(before.keySet());
    before.forEach(
        (name, hook) -> {
          Hook moved = after.get(name);
          assertThat(moved.clientConfig().getUrl())
              .isEqualTo("https://127.0.0.1:1234" + hook.clientConfig().getService().getPath());
          assertThat(moved.clientConfig().getCaBundle()).isEqualTo("UEVN");
          assertThat(moved)
              .usingRecursiveComparison()
              .ignoringFields("clientConfig")
              .isEqualTo(hook);
        });
    // Pointing elsewhere again keeps the path (and the bundle).
    assertThat(loopback.pointedAt("https://10.0.0.1:9443").validating().getWebhooks().get(0))
        .satisfies(
            w -> {
              assertThat(w.getClientConfig().getUrl())
                  .isEqualTo("https://10.0.0.1:9443" + WebhookPaths.VALIDATE_CLUSTER_QUEUE);
              assertThat(w.getClientConfig().getCaBundle()).isEqualTo("UEVN");
            });
  }

  private static List<String> excluded(Hook hook) {
    assertThat(hook.namespaceSelector()).as(hook.name()).isNotNull();
    LabelSelectorRequirement exclusion =
        hook.namespaceSelector().getMatchExpressions().stream()
            .filter(e -> e.getKey().equals("kubernetes.io/metadata.name"))
            .findFirst()
            .orElseThrow(() -> new AssertionError(hook.name() + " has no namespace exclusion"));
    assertThat(exclusion.getOperator()).isEqualTo("NotIn");
    return exclusion.getValues();
  }

  private static List<String> selector(LabelSelector selector) {
    assertThat(selector).isNotNull();
    return selector.getMatchExpressions().stream()
        .map(e -> e.getKey() + " " + e.getOperator())
        .toList();
  }
}
