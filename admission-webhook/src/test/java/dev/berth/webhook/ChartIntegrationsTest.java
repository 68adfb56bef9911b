package dev.berth.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.berth.api.v1beta1.Berth;
import dev.berth.webhook.ChartWebhooksTest.Hook;
import dev.berth.webhook.integration.Framework;
import dev.berth.webhook.integration.Framework.Resource;
import dev.berth.webhook.server.AdmissionHandler;
import dev.berth.webhook.server.BerthWebhooks;
import dev.berth.webhook.validation.QueueScope;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperations;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The chart and the registry of workload kinds ({@link Framework}) say the same thing: for every
 * subset of the kinds {@code integrations.frameworks} may list, the chart renders the webhooks and
 * the operator's RBAC of exactly the kinds listed, each with the registry's API group, version,
 * resource and paths, and the webhook server serves those paths. The schema's list of framework
 * names and the default of {@code integrations.frameworks} are the registry's.
 */
class ChartIntegrationsTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Map<String, AdmissionHandler> ROUTES =
      BerthWebhooks.routes("operator", QueueScope.NONE);
  private static HelmChart chart;

  @BeforeAll
  static void locate() {
    chart = HelmChart.locate();
  }

  /**
   * The subsets of the registry the chart is rendered with, in registry order: none, every kind
   * alone and every pair (what one kind's rendering could depend on is another kind being listed:
   * the pod webhooks' owners, for one), every set of all but one kind, and all of them. Every
   * subset of a dozen kinds would be thousands of renders for no more cases. A kind whose pods the
   * pod integration runs comes with {@code pod} ({@link #aKindRunByPodsNeedsThePodIntegration}).
   */
  static Stream<List<Framework>> subsets() {
    Framework[] all = Framework.values();
    int full = (1 << all.length) - 1;
    java.util.SortedSet<Integer> masks = new java.util.TreeSet<>();
    masks.add(0);
    masks.add(full);
    for (int i = 0; i < all.length; i++) {
      masks.add(full & ~(1 << i));
      for (int j = i; j < all.length; j++) {
        masks.add(1 << i | 1 << j);
      }
    }
    java.util.Set<List<Framework>> subsets = new java.util.LinkedHashSet<>();
    for (int mask : masks) {
      List<Framework> subset = new ArrayList<>();
      for (int i = 0; i < all.length; i++) {
        if ((mask & 1 << i) != 0 || (all[i] == Framework.POD && anyRunByPods(all, mask))) {
          subset.add(all[i]);
        }
      }
      subsets.add(subset);
    }
    return subsets.stream();
  }

  private static boolean anyRunByPods(Framework[] all, int mask) {
    for (int i = 0; i < all.length; i++) {
      if ((mask & 1 << i) != 0 && all[i].runByPods()) {
        return true;
      }
    }
    return false;
  }

  private static String frameworksValue(List<Framework> enabled) {
    return "integrations.frameworks="
        + enabled.stream().map(f -> "\"" + f.frameworkName() + "\"").toList();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("subsets")
  void theChartRendersTheWebhooksOfExactlyTheEnabledKinds(List<Framework> enabled) {
    Map<String, Hook> hooks =
        ChartWebhooksTest.hooks(
            ChartWebhooks.parse(
                chart.template(
                    ChartWebhooks.RELEASE,
                    "ops",
                    List.of(
                        "--show-only",
                        "templates/webhooks.yaml",
                        "--set-json",
                        frameworksValue(enabled)))));
    Set<String> workloadHooks = new HashSet<>();
    hooks.values().stream()
        .filter(
            h ->
                !h.berthKind()
                    && !h.resources().contains("pods")
                    && !h.resources().contains("cronjobs")
                    && !h.resources().contains("resourceclaims"))
        .forEach(h -> workloadHooks.add(h.name()));
    // The claim webhook (flavors by device attribute) does not depend on the kinds: always there.
    assertThat(hooks).containsKey("mresourceclaim-flavor.berth.dev");
    Set<String> expected = new HashSet<>();
    // Plain Pods have webhooks of their own (the pod path is shared with the queue rule's and the
    // topology gate's, which every pod goes through): present exactly when pod is on.
    boolean pods = enabled.contains(Framework.POD);
    for (String hook : List.of("mpod-admission", "mpod-default-queue", "vpod-admission")) {
      assertThat(hooks.containsKey(hook + ".berth.dev")).as(hook).isEqualTo(pods);
    }
    if (pods) {
      assertThat(hooks.get("mpod-admission.berth.dev").path())
          .isEqualTo(Framework.POD.mutatePath());
      assertThat(hooks.get("vpod-admission.berth.dev").path())
          .isEqualTo(Framework.POD.validatePath());
      assertThat(ROUTES).containsKeys(Framework.POD.mutatePath(), Framework.POD.validatePath());
    }
    for (Framework framework : enabled) {
      if (framework == Framework.POD) {
        continue;
      }
      String name = framework.webhookName();
      expected.addAll(
          List.of(
              "v" + name + ".berth.dev",
              "m" + name + ".berth.dev",
              "m" + name + "-default-queue.berth.dev"));
      Hook validating = hooks.get("v" + name + ".berth.dev");
      assertThat(validating).as(name).isNotNull();
      assertThat(validating.path()).isEqualTo(framework.validatePath());
      assertThat(validating.operations()).containsExactly("CREATE", "UPDATE");
      for (String mutating : List.of("m" + name, "m" + name + "-default-queue")) {
        Hook hook = hooks.get(mutating + ".berth.dev");
        assertThat(hook).as(mutating).isNotNull();
        assertThat(hook.path()).isEqualTo(framework.mutatePath());
        assertThat(hook.operations()).containsExactly("CREATE");
      }
      for (Hook hook :
          List.of(
              validating,
              hooks.get("m" + name + ".berth.dev"),
              hooks.get("m" + name + "-default-queue.berth.dev"))) {
        RuleWithOperations rule = hook.rules().get(0);
        assertThat(hook.rules()).as(hook.name()).hasSize(1);
        assertThat(rule.getApiGroups()).as(hook.name()).containsExactly(framework.group());
        assertThat(rule.getApiVersions()).as(hook.name()).containsExactly(framework.version());
        assertThat(rule.getResources()).as(hook.name()).containsExactly(framework.plural());
        assertThat(ROUTES).as("%s is served", hook.path()).containsKey(hook.path());
      }
      assertThat(hooks.get("m" + name + ".berth.dev").objectSelector().getMatchExpressions())
          .singleElement()
          .satisfies(e -> assertThat(e.getKey()).isEqualTo(Berth.QUEUE_NAME_LABEL));
    }
    assertThat(workloadHooks).containsExactlyInAnyOrderElementsOf(expected);
    // A CronJob's Jobs are batch/v1 Jobs: its rule is registered with batch/job, and only then.
    assertThat(hooks.containsKey("vcronjob.berth.dev"))
        .isEqualTo(enabled.contains(Framework.BATCH_JOB));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("subsets")
  void theOperatorMayTouchTheResourcesOfExactlyTheEnabledKinds(List<Framework> enabled) {
    String manifests =
        chart.template(
            ChartWebhooks.RELEASE,
            "ops",
            List.of(
                "--show-only",
                "templates/clusterrole.yaml",
                "--set-json",
                frameworksValue(enabled)));
    // The operator's ClusterRole; its binding follows it in the same template.
    ClusterRole role =
        Stream.of(manifests.split("(?m)^---\\s*$"))
            .filter(doc -> doc.contains("kind: ClusterRole\n"))
            .map(doc -> Serialization.unmarshal(doc, ClusterRole.class))
            .findFirst()
            .orElseThrow();
    Set<Resource> every = new LinkedHashSet<>();
    Set<Resource> needed = new LinkedHashSet<>();
    for (Framework framework : Framework.values()) {
      every.addAll(framework.resources());
      if (enabled.contains(framework)) {
        needed.addAll(framework.resources());
      }
    }
    // What the role grants on the registry's resources and their subresources, by resource.
    Map<String, Set<String>> granted = new HashMap<>();
    for (PolicyRule rule : role.getRules()) {
      for (String group : rule.getApiGroups()) {
        for (String resource : rule.getResources()) {
          String base =
              resource.contains("/") ? resource.substring(0, resource.indexOf('/')) : resource;
          if (every.contains(new Resource(group, base))) {
            assertThat(rule.getResourceNames()).as(resource).isNullOrEmpty();
            granted
                .computeIfAbsent(group + "/" + resource, k -> new LinkedHashSet<>())
                .addAll(rule.getVerbs());
          }
        }
      }
    }
    Map<String, Set<String>> expected = new HashMap<>();
    // Pods are read (and topology-gated pods released) for every kind; the pod integration adds
    // delete (eviction), and the status and finalizers rights every kind gets.
    expected.put("/pods", Set.of("get", "list", "watch", "update", "patch"));
    if (enabled.contains(Framework.POD)) {
      expected.put("/pods", Set.of("get", "list", "watch", "update", "patch", "delete"));
    }
    for (Resource r : needed) {
      if (r.plural().equals("pods") && r.group().isEmpty()) {
        expected.put("/pods/status", Set.of("get", "update", "patch"));
        expected.put("/pods/finalizers", Set.of("update"));
        continue;
      }
      String key = r.group() + "/" + r.plural();
      expected.put(key, Set.of("get", "list", "watch", "update", "patch"));
      expected.put(key + "/status", Set.of("get", "update", "patch"));
      expected.put(key + "/finalizers", Set.of("update"));
    }
    assertThat(granted).isEqualTo(expected);
  }

  @Test
  void theSchemaAndTheDefaultNameTheRegistrysFrameworks() throws IOException {
    JsonNode schema =
        YAML.readTree(Files.readString(chart.chartDirectory().resolve("values.schema.json")));
    List<String> allowed = new ArrayList<>();
    schema
        .at("/properties/integrations/properties/frameworks/items/enum")
        .forEach(n -> allowed.add(n.asText()));
    assertThat(allowed).containsExactlyElementsOf(Framework.frameworkNames());
    JsonNode values =
        YAML.readTree(Files.readString(chart.chartDirectory().resolve("values.yaml")));
    List<String> defaults = new ArrayList<>();
    values.at("/integrations/frameworks").forEach(n -> defaults.add(n.asText()));
    assertThat(defaults).containsExactlyElementsOf(Framework.defaultFrameworkNames());
  }

  @Test
  void aKindRunByPodsNeedsThePodIntegration() {
    assertThatThrownBy(
            () ->
                ChartWebhooks.render(
                    chart, "ops", "integrations.frameworks={batch/job,deployment}"))
        .hasMessageContaining(
            "integrations.frameworks[1]: deployment needs pod too: a Deployment's pods");
  }

  @Test
  void anUnknownFrameworkIsRefusedWithItsPath() {
    assertThatThrownBy(
            () ->
                ChartWebhooks.render(
                    chart, "ops", "integrations.frameworks={batch/job,kubeflow.org/tfjob}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("integrations/frameworks/1");
  }
}
