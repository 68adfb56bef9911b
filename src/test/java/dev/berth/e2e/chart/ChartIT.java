package dev.berth.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.operator.config.Configuration;
import dev.berth.operator.config.ConfigurationLoader;
import dev.berth.webhook.HelmChart;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributesBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Helm chart, checked with the real helm binary and a real kube-apiserver: lint, schema,
 * least-privilege RBAC, a locked-down Deployment, deliberate webhook policies, and every rendered
 * object accepted by the API server.
 */
class ChartIT {
  private static final String NS = "berth-system";
  private static final String WORKLOAD_STATUS = "workloads/status";
  private static final Set<String> WRITE_VERBS =
      Set.of("create", "update", "patch", "delete", "deletecollection");

  /** The values variations every static check runs over: name, then helm --set arguments. */
  /** A check controller granted the "capacity" check, and bound by the chart. */
  static final String CHECK_CONTROLLERS =
      "rbac.checkControllers=[{\"name\":\"capacity\",\"checks\":[\"capacity\"],"
          + "\"serviceAccount\":{\"namespace\":\"capacity-system\","
          + "\"name\":\"capacity-provisioner\"}}]";

  static Stream<Arguments> variations() {
    return Stream.of(
        Arguments.of("defaults", new String[0]),
        Arguments.of(
            "cert-manager, ServiceMonitor, pod webhook, a check controller",
            new String[] {
              "--set", "certManager.enabled=true",
              "--set", "metrics.serviceMonitor.enabled=true",
              "--set", "webhooks.podTopologyGates.enabled=true",
              "--set-json", CHECK_CONTROLLERS
            }),
        Arguments.of(
            "cert-manager with a ClusterIssuer, no JobSet, no default queue, no pod webhook,"
                + " no user roles",
            new String[] {
              "--set", "certManager.enabled=true",
              "--set", "certManager.issuerRef.name=corp-ca",
              "--set", "certManager.issuerRef.kind=ClusterIssuer",
              "--set", "integrations.frameworks={batch/job}",
              "--set", "webhooks.defaultQueue.enabled=false",
              "--set", "webhooks.podTopologyGates.enabled=false",
              "--set", "rbac.userRoles=false"
            }));
  }

  private static List<GenericKubernetesResource> render(String... args) {
    return Manifests.parse(HelmCli.template("berth", NS, args));
  }

  @BeforeAll
  static void helmIsThePinnedVersion() {
    // The binary the build made from the pin in scripts/helm-binary.sh, not one found elsewhere.
    assertThat(Repo.helm().getParent().getFileName().toString())
        .isEqualTo(Repo.pinnedHelmVersion());
    HelmChart.Result version = HelmCli.run("version", "--short");
    assertThat(version.stdout()).startsWith("v" + Repo.pinnedHelmVersion());
  }

  @Test
  void lintIsClean() {
    for (String[] values : variations().map(a -> (String[]) a.get()[1]).toList()) {
      List<String> args = new ArrayList<>(List.of("lint", "--strict", HelmCli.CHART.toString()));
      args.addAll(List.of(values));
      HelmChart.Result lint = HelmCli.run(args.toArray(String[]::new));
      assertThat(lint.exitCode()).as(lint.output()).isZero();
      assertThat(lint.output())
          .contains("1 chart(s) linted, 0 chart(s) failed")
          .doesNotContain("[WARNING]")
          .doesNotContain("[ERROR]");
    }
  }

  @Test
  void schemaCatchesTyposAndBadValues() {
    assertThat(HelmCli.run("template", "x", HelmCli.CHART.toString(), "--set", "imge.tag=1"))
        .satisfies(r -> assertThat(r.exitCode()).isNotZero())
        .satisfies(r -> assertThat(r.output()).contains("additional properties 'imge'"));
    assertThat(
            HelmCli.run(
                "template", "x", HelmCli.CHART.toString(), "--set", "webhooks.timeoutSecond=5"))
        .satisfies(r -> assertThat(r.output()).contains("'timeoutSecond' not allowed"));
    assertThat(
            HelmCli.run(
                "template", "x", HelmCli.CHART.toString(), "--set", "webhooks.timeoutSeconds=31"))
        .satisfies(r -> assertThat(r.exitCode()).isNotZero());
    assertThat(
            HelmCli.run(
                "template", "x", HelmCli.CHART.toString(), "--set", "webhooks.jobTimeoutSeconds=0"))
        .satisfies(r -> assertThat(r.exitCode()).isNotZero())
        .satisfies(r -> assertThat(r.output()).contains("jobTimeoutSeconds"));
    assertThat(
            HelmCli.run(
                "template",
                "x",
                HelmCli.CHART.toString(),
                "--set",
                "replicaCount=2",
                "--set",
                "leaderElection.enabled=false"))
        .satisfies(r -> assertThat(r.output()).contains("leaderElection.enabled must be true"));
  }

  @Test
  void loggingFormatIsTheSettingTheOperatorReads() {
    JsonNode json =
        Manifests.json(Manifests.one(render("--set", "logging.format=json"), "Deployment"))
            .at("/spec/template/spec/containers/0");
    assertThat(dev.berth.operator.logging.LogFormat.from(env(json)))
        .isEqualTo(dev.berth.operator.logging.LogFormat.JSON);
    JsonNode defaults =
        Manifests.json(Manifests.one(render(), "Deployment"))
            .at("/spec/template/spec/containers/0");
    assertThat(env(defaults)).containsEntry("BERTH_LOG_FORMAT", "text");
    assertThat(dev.berth.operator.logging.LogFormat.from(env(defaults)))
        .isEqualTo(dev.berth.operator.logging.LogFormat.TEXT);
    assertThat(
            HelmCli.run(
                "template", "x", HelmCli.CHART.toString(), "--set", "logging.format=logfmt"))
        .satisfies(r -> assertThat(r.exitCode()).isNotZero())
        .satisfies(r -> assertThat(r.output()).contains("logging/format"));
  }

  @Test
  void waitForPodsReadyValuesAreTheSettingsTheOperatorReads() {
    Configuration configured =
        configuration(
            render(
                "--set", "waitForPodsReady.enable=true",
                "--set", "waitForPodsReady.timeoutSeconds=600",
                "--set", "waitForPodsReady.blockAdmission=true",
                "--set", "waitForPodsReady.recoveryTimeoutSeconds=120",
                "--set", "waitForPodsReady.requeuingStrategy.timestamp=Creation",
                "--set", "waitForPodsReady.requeuingStrategy.backoffBaseSeconds=30",
                "--set", "waitForPodsReady.requeuingStrategy.backoffMaxSeconds=900",
                "--set", "waitForPodsReady.requeuingStrategy.backoffLimitCount=5"));
    assertThat(dev.berth.operator.WaitForPodsReady.of(configured.waitForPodsReady()))
        .isEqualTo(
            new dev.berth.operator.WaitForPodsReady(
                true,
                java.time.Duration.ofSeconds(600),
                true,
                java.time.Duration.ofSeconds(120),
                dev.berth.operator.WaitForPodsReady.RequeuingTimestamp.Creation,
                new dev.berth.engine.checks.RequeueBackoff(30, 900, 5)));
    // The defaults are the operator's own defaults: off, no recovery timeout, no limit.
    assertThat(dev.berth.operator.WaitForPodsReady.of(configuration(render()).waitForPodsReady()))
        .isEqualTo(dev.berth.operator.WaitForPodsReady.DEFAULT);
    assertThat(
            HelmCli.run(
                    "template",
                    "x",
                    HelmCli.CHART.toString(),
                    "--set",
                    "waitForPodsReady.requeuingStrategy.timestamp=Now")
                .output())
        .contains("waitForPodsReady/requeuingStrategy/timestamp");
  }

  @ParameterizedTest(name = "{0}: no wildcard in any Role or ClusterRole")
  @MethodSource("variations")
  void rbacHasNoWildcards(String name, String[] values) {
    List<GenericKubernetesResource> objects = render(values);
    for (GenericKubernetesResource role : roles(objects)) {
      for (JsonNode rule : Manifests.json(role).path("rules")) {
        for (String field : List.of("apiGroups", "resources", "verbs", "resourceNames")) {
          assertThat(texts(rule.path(field)))
              .as("%s %s", Manifests.id(role), field)
              .noneMatch(v -> v.contains("*"));
        }
        assertThat(rule.has("nonResourceURLs")).as(Manifests.id(role)).isFalse();
      }
    }
  }

  @ParameterizedTest(
      name =
          "{0}: only the operator's and check controllers' roles write workloads/status, bound"
              + " only as the values say")
  @MethodSource("variations")
  void onlyTheOperatorWritesWorkloadStatus(String name, String[] values) {
    List<GenericKubernetesResource> objects = render(values);
    List<String> writers = new ArrayList<>();
    for (GenericKubernetesResource role : roles(objects)) {
      for (JsonNode rule : Manifests.json(role).path("rules")) {
        if (texts(rule.path("apiGroups")).contains("berth.dev")
            && texts(rule.path("resources")).contains(WORKLOAD_STATUS)
            && texts(rule.path("verbs")).stream().anyMatch(WRITE_VERBS::contains)) {
          writers.add(Manifests.id(role));
        }
      }
    }
    // Check controllers' role writes check states only (the workloads/status webhook keeps it
    // from admission); it is aggregated into a role the chart binds to nobody.
    assertThat(writers)
        .containsExactlyInAnyOrder(
            "ClusterRole berth-operator", "ClusterRole berth-admission-check-writer");
    assertThat(
            Manifests.json(
                    Manifests.named(objects, "ClusterRole", "berth-admission-check-writer")
                        .orElseThrow())
                .at("/metadata/labels/rbac.berth.dev~1aggregate-to-admission-check-controller")
                .asText())
        .isEqualTo("true");
    // The check controllers' roles are bound only to the ServiceAccounts rbac.checkControllers
    // names, and never the writer role alone (the aggregate, with the per-check grant).
    boolean listed = List.of(values).contains(CHECK_CONTROLLERS);
    List<String> checkBindings = new ArrayList<>();
    for (GenericKubernetesResource binding : objects) {
      String role = Manifests.json(binding).at("/roleRef/name").asText();
      if (binding.getKind().endsWith("RoleBinding")
          && (role.startsWith("berth-admission-check") || role.startsWith("berth-check-"))) {
        checkBindings.add(role);
        JsonNode subjects = Manifests.json(binding).path("subjects");
        assertThat(subjects).as(Manifests.id(binding)).hasSize(1);
        assertThat(subjects.at("/0/kind").asText()).isEqualTo("ServiceAccount");
        assertThat(subjects.at("/0/namespace").asText()).isEqualTo("capacity-system");
        assertThat(subjects.at("/0/name").asText()).isEqualTo("capacity-provisioner");
      }
    }
    assertThat(checkBindings)
        .containsExactlyInAnyOrderElementsOf(
            listed
                ? List.of("berth-check-capacity", "berth-admission-check-controller")
                : List.of());
    // And the operator's ClusterRole is bound to the operator's ServiceAccount only.
    JsonNode binding =
        Manifests.json(
            Manifests.named(objects, "ClusterRoleBinding", "berth-operator").orElseThrow());
    assertThat(binding.at("/roleRef/name").asText()).isEqualTo("berth-operator");
    assertThat(binding.path("subjects")).hasSize(1);
    assertThat(binding.at("/subjects/0/kind").asText()).isEqualTo("ServiceAccount");
    assertThat(binding.at("/subjects/0/name").asText()).isEqualTo("berth");
    assertThat(binding.at("/subjects/0/namespace").asText()).isEqualTo(NS);
  }

  @ParameterizedTest(name = "{0}: the operator reads nodes and pods, and only patches pods")
  @MethodSource("variations")
  void operatorReadsNodesAndReleasesPodGates(String name, String[] values) {
    Map<String, Set<String>> verbs = new HashMap<>();
    JsonNode role =
        Manifests.json(
            Manifests.named(render(values), "ClusterRole", "berth-operator").orElseThrow());
    for (JsonNode rule : role.path("rules")) {
      if (texts(rule.path("apiGroups")).contains("")) {
        assertThat(rule.has("resourceNames")).as("core rules are cluster-wide").isFalse();
        for (String resource : texts(rule.path("resources"))) {
          verbs.computeIfAbsent(resource, r -> new TreeSet<>()).addAll(texts(rule.path("verbs")));
        }
      }
    }
    assertThat(verbs.get("nodes")).containsExactlyInAnyOrder("get", "list", "watch");
    // Even with the pod webhook off: pods gated before it was turned off must still be released.
    // With the pod integration on, an evicted plain Pod is deleted (a pod cannot be suspended),
    // and its status and finalizers are written as any integration kind's.
    boolean podIntegration =
        !String.join(" ", values).contains("integrations.frameworks={batch/job}");
    if (podIntegration) {
      assertThat(verbs.get("pods"))
          .containsExactlyInAnyOrder("get", "list", "watch", "update", "patch", "delete");
      assertThat(verbs.get("pods/status")).containsExactlyInAnyOrder("get", "update", "patch");
      assertThat(verbs.get("pods/finalizers")).containsExactly("update");
    } else {
      assertThat(verbs.get("pods"))
          .containsExactlyInAnyOrder("get", "list", "watch", "update", "patch");
      assertThat(verbs).doesNotContainKeys("pods/status", "pods/finalizers");
    }
    assertThat(verbs).doesNotContainKeys("pods/binding", "nodes/status");
  }

  @ParameterizedTest(name = "{0}: the Deployment runs locked down, probed and sized")
  @MethodSource("variations")
  void deploymentIsLockedDown(String name, String[] values) {
    List<GenericKubernetesResource> objects = render(values);
    JsonNode deployment = Manifests.json(Manifests.one(objects, "Deployment"));
    JsonNode pod = deployment.at("/spec/template/spec");
    assertThat(deployment.at("/spec/replicas").asInt()).isEqualTo(2);
    assertThat(pod.at("/securityContext/runAsNonRoot").asBoolean()).isTrue();
    assertThat(pod.at("/securityContext/seccompProfile/type").asText()).isEqualTo("RuntimeDefault");
    assertThat(pod.path("containers")).hasSize(1);
    JsonNode container = pod.at("/containers/0");
    JsonNode sc = container.path("securityContext");
    assertThat(sc.path("runAsNonRoot").asBoolean()).isTrue();
    assertThat(sc.path("readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(sc.has("allowPrivilegeEscalation")).isTrue();
    assertThat(sc.path("allowPrivilegeEscalation").asBoolean()).isFalse();
    assertThat(texts(sc.at("/capabilities/drop"))).containsExactly("ALL");
    assertThat(sc.has("privileged") && sc.path("privileged").asBoolean()).isFalse();
    assertThat(sc.at("/seccompProfile/type").asText()).isEqualTo("RuntimeDefault");
    assertThat(container.at("/livenessProbe/httpGet/path").asText()).isEqualTo("/healthz");
    assertThat(container.at("/readinessProbe/httpGet/path").asText()).isEqualTo("/readyz");
    assertThat(container.at("/startupProbe/httpGet/path").asText()).isEqualTo("/healthz");
    for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
      assertThat(container.at("/" + probe + "/httpGet/port").asText()).isEqualTo("metrics");
    }
    assertThat(container.at("/resources/requests/cpu").asText()).isNotEmpty();
    assertThat(container.at("/resources/requests/memory").asText()).isNotEmpty();
    assertThat(container.at("/resources/limits/memory").asText()).isNotEmpty();
    Map<String, Integer> ports = new HashMap<>();
    container
        .path("ports")
        .forEach(p -> ports.put(p.path("name").asText(), p.path("containerPort").asInt()));
    assertThat(ports).containsEntry("webhook", 9443).containsEntry("metrics", 8080);
    // Replicas spread over nodes; a one-node cluster still runs them (preferred, not required).
    assertThat(pod.at("/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution"))
        .isNotEmpty();
    assertThat(
            pod.at("/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution")
                .isMissingNode())
        .isTrue();
    // A read-only root needs writable mounts for the JVM's /tmp and the certificates.
    Map<String, String> mounts = new HashMap<>();
    container
        .path("volumeMounts")
        .forEach(m -> mounts.put(m.path("mountPath").asText(), m.path("name").asText()));
    // The operator's settings are its configuration file, rendered into a ConfigMap.
    Configuration config = configuration(objects);
    assertThat(mounts).containsKeys("/tmp", config.webhook().certDir());
    assertThat(env(container)).containsEntry("BERTH_CONFIG", "/etc/berth/config.yaml");
    assertThat(mounts).containsEntry("/etc/berth", "config");
    assertThat(config.leaderElection().leaderElect()).isTrue();
    assertThat(config.leaderElection().resourceName()).isEqualTo("berth-leader");
    assertThat(config.metrics().port()).isEqualTo(8080);
    assertThat(config.webhook().port()).isEqualTo(9443);
    assertThat(config.visibility().port()).isEqualTo(8443);
    assertThat(config.visibility().dashboard()).isFalse();
    assertThat(config.webhook().certDir()).isEqualTo("/tmp/berth-certs");
    assertThat(config.internalCertManagement().webhookServiceName()).isEqualTo("berth");
    assertThat(config.internalCertManagement().validatingWebhookConfigurationName())
        .isEqualTo("berth-validating");
    assertThat(config.internalCertManagement().mutatingWebhookConfigurationName())
        .isEqualTo("berth-mutating");
    assertThat(config.webhook().operatorIdentity())
        .isEqualTo("system:serviceaccount:" + NS + ":berth");
    assertThat(config.namespace()).isEqualTo(NS);
    JsonNode namespaceEnv =
        StreamSupport.stream(container.path("env").spliterator(), false)
            .filter(e -> e.path("name").asText().equals("BERTH_NAMESPACE"))
            .findFirst()
            .orElseThrow();
    assertThat(namespaceEnv.at("/valueFrom/fieldRef/fieldPath").asText())
        .isEqualTo("metadata.namespace");
    assertThat(pod.path("serviceAccountName").asText()).isEqualTo("berth");
    // The PodDisruptionBudget and the Service select the Deployment's pods.
    JsonNode labels = deployment.at("/spec/template/metadata/labels");
    JsonNode pdb = Manifests.json(Manifests.one(objects, "PodDisruptionBudget"));
    pdb.at("/spec/selector/matchLabels")
        .fields()
        .forEachRemaining(f -> assertThat(labels.path(f.getKey())).isEqualTo(f.getValue()));
    JsonNode service = Manifests.json(Manifests.one(objects, "Service"));
    service
        .at("/spec/selector")
        .fields()
        .forEachRemaining(f -> assertThat(labels.path(f.getKey())).isEqualTo(f.getValue()));
  }

  @ParameterizedTest(name = "{0}: webhooks have deliberate policies and selectors")
  @MethodSource("variations")
  void webhooksAreDeliberate(String name, String[] values) {
    List<GenericKubernetesResource> objects = render(values);
    JsonNode service = Manifests.json(Manifests.one(objects, "Service"));
    JsonNode webhookPort =
        StreamSupport.stream(service.at("/spec/ports").spliterator(), false)
            .filter(p -> p.path("port").asInt() == 443)
            .findFirst()
            .orElseThrow();
    assertThat(webhookPort.path("targetPort").asText()).isEqualTo("webhook");
    assertThat(
            StreamSupport.stream(service.at("/spec/ports").spliterator(), false)
                .anyMatch(p -> p.path("port").asInt() == 8080))
        .isTrue();

    Map<String, JsonNode> hooks = new HashMap<>();
    for (String kind : List.of("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")) {
      for (JsonNode hook : Manifests.json(Manifests.one(objects, kind)).path("webhooks")) {
        assertThat(hooks.put(hook.path("name").asText(), hook)).isNull();
      }
    }
    for (JsonNode hook : hooks.values()) {
      String hookName = hook.path("name").asText();
      assertThat(hook.path("sideEffects").asText()).as(hookName).isEqualTo("None");
      assertThat(texts(hook.path("admissionReviewVersions"))).as(hookName).containsExactly("v1");
      assertThat(hook.at("/clientConfig/service/name").asText()).isEqualTo("berth");
      assertThat(hook.at("/clientConfig/service/namespace").asText()).isEqualTo(NS);
      assertThat(hook.at("/clientConfig/service/port").asInt()).isEqualTo(443);
      List<String> groups = texts(hook.at("/rules/0/apiGroups"));
      if (groups.equals(List.of("berth.dev"))) {
        // Berth's own kinds, in every namespace (an excluded one would be a place to forge a
        // Workload's admission); the admin's and the operator's writes get the full budget.
        assertThat(hook.path("timeoutSeconds").asInt()).as(hookName).isEqualTo(10);
        assertThat(hook.has("namespaceSelector")).as(hookName).isFalse();
      } else {
        // Jobs, JobSets and pods: on the teams' and the Job controller's path, fail fast; never
        // the system namespaces nor Berth's own.
        assertThat(hook.path("timeoutSeconds").asInt()).as(hookName).isEqualTo(5);
        JsonNode excluded =
            StreamSupport.stream(
                    hook.at("/namespaceSelector/matchExpressions").spliterator(), false)
                .filter(e -> e.path("key").asText().equals("kubernetes.io/metadata.name"))
                .findFirst()
                .orElseThrow(() -> new AssertionError(hookName + " has no namespace exclusion"));
        assertThat(excluded.path("operator").asText()).isEqualTo("NotIn");
        assertThat(texts(excluded.path("values"))).as(hookName).contains("kube-system", NS);
      }
      boolean defaultQueue = hookName.endsWith("-default-queue.berth.dev");
      assertThat(hook.path("failurePolicy").asText())
          .as(hookName)
          .isEqualTo(defaultQueue ? "Ignore" : "Fail");
      boolean validating = hookName.startsWith("v");
      if (validating && (groups.contains("batch") || groups.contains("jobset.x-k8s.io"))) {
        // Every Job: which namespaces Berth manages follows the ClusterQueues, not a label.
        assertThat(hook.has("objectSelector")).as(hookName).isFalse();
      } else if (groups.contains("batch") || groups.contains("jobset.x-k8s.io")) {
        JsonNode selector = hook.at("/objectSelector/matchExpressions/0");
        assertThat(selector.path("key").asText()).isEqualTo("berth.dev/queue-name");
        assertThat(selector.path("operator").asText())
            .as(hookName)
            .isEqualTo(defaultQueue ? "DoesNotExist" : "Exists");
      }
      if (groups.contains("") && !hookName.equals("vpod-queue.berth.dev")) {
        assertThat(hook.path("objectSelector").isObject())
            .as("pod webhook needs a selector")
            .isTrue();
      } else if (groups.contains("")) {
        // The queue rule for pods must see bare pods, which carry nothing to select on; pods
        // that ask for no resources are kept away by its matchCondition instead.
        assertThat(hook.has("objectSelector")).as(hookName).isFalse();
        assertThat(hook.at("/matchConditions/0/name").asText())
            .as(hookName)
            .isEqualTo("asks-for-resources");
      }
    }
    Map<String, String> paths = new HashMap<>();
    hooks.forEach((n, h) -> paths.put(n, h.at("/clientConfig/service/path").asText()));
    for (String kind :
        List.of(
            "clusterqueue",
            "cohort",
            "resourceflavor",
            "localqueue",
            "workload",
            "workloadpriorityclass",
            "topology")) {
      assertThat(paths)
          .containsEntry("v" + kind + ".berth.dev", "/validate-berth-dev-v1beta1-" + kind);
    }
    assertThat(paths)
        .containsEntry("vjob.berth.dev", "/validate-batch-v1-job")
        .containsEntry("mjob.berth.dev", "/mutate-batch-v1-job")
        .containsEntry("mclusterqueue.berth.dev", "/mutate-berth-dev-v1beta1-clusterqueue")
        .containsEntry("mworkload.berth.dev", "/mutate-berth-dev-v1beta1-workload");
    boolean jobSet = !List.of(values).contains("integrations.frameworks={batch/job}");
    boolean defaultQueue = !List.of(values).contains("webhooks.defaultQueue.enabled=false");
    boolean podGates = !List.of(values).contains("webhooks.podTopologyGates.enabled=false");
    assertThat(paths.containsKey("vjobset.berth.dev")).isEqualTo(jobSet);
    assertThat(paths.containsKey("mjobset.berth.dev")).isEqualTo(jobSet);
    assertThat(paths.containsKey("mjob-default-queue.berth.dev")).isEqualTo(defaultQueue);
    assertThat(paths.containsKey("mpod.berth.dev")).isEqualTo(podGates);
    assertThat(paths.containsKey("vpod.berth.dev")).isEqualTo(podGates);
    if (podGates) {
      assertThat(paths).containsEntry("vpod.berth.dev", "/validate--v1-pod");
      JsonNode update = hooks.get("vpod.berth.dev");
      assertThat(texts(update.at("/rules/0/operations"))).containsExactly("UPDATE");
      assertThat(update.at("/objectSelector/matchExpressions/0/key").asText())
          .isEqualTo("berth.dev/podset");
      // Only pods still behind Berth's gate fail closed; released pods never reach Berth.
      assertThat(update.at("/matchConditions/0/expression").asText())
          .startsWith("has(oldObject.spec.schedulingGates)")
          .contains("g.name == '" + dev.berth.api.v1beta1.Berth.TOPOLOGY_SCHEDULING_GATE + "'");
      assertThat(paths).containsEntry("mpod.berth.dev", "/mutate--v1-pod");
      JsonNode pod = hooks.get("mpod.berth.dev");
      assertThat(texts(pod.at("/rules/0/apiGroups"))).containsExactly("");
      assertThat(texts(pod.at("/rules/0/apiVersions"))).containsExactly("v1");
      assertThat(texts(pod.at("/rules/0/resources"))).containsExactly("pods");
      assertThat(texts(pod.at("/rules/0/operations"))).containsExactly("CREATE");
      // Only pods of an admitted topology-aware podSet, never every pod in the cluster.
      assertThat(pod.at("/objectSelector/matchExpressions")).hasSize(1);
      assertThat(pod.at("/objectSelector/matchExpressions/0/key").asText())
          .isEqualTo("berth.dev/podset");
      assertThat(pod.at("/objectSelector/matchExpressions/0/operator").asText())
          .isEqualTo("Exists");
      assertThat(pod.at("/objectSelector/matchLabels").isMissingNode()).isTrue();
    }
    if (jobSet) {
      assertThat(paths)
          .containsEntry("vjobset.berth.dev", "/validate-jobset-x-k8s-io-v1alpha2-jobset")
          .containsEntry("mjobset.berth.dev", "/mutate-jobset-x-k8s-io-v1alpha2-jobset");
    }
    // Status writes go to the status guard (admissions are the operator's), not to the Workload
    // validator, which lets every subresource request through.
    assertThat(texts(hooks.get("vworkload.berth.dev").at("/rules/0/resources")))
        .containsExactly("workloads");
    JsonNode status = hooks.get("vworkload-status.berth.dev");
    assertThat(status.at("/clientConfig/service/path").asText())
        .isEqualTo("/validate-berth-dev-v1beta1-workload-status");
    assertThat(texts(status.at("/rules/0/resources"))).containsExactly(WORKLOAD_STATUS);
    assertThat(texts(status.at("/rules/0/operations"))).containsExactly("UPDATE");
    assertThat(paths)
        .containsEntry("mlocalqueue.berth.dev", "/mutate-berth-dev-v1beta1-localqueue");
    for (String kind : List.of("clusterqueue", "localqueue", "workload")) {
      assertThat(texts(hooks.get("m" + kind + ".berth.dev").at("/rules/0/operations")))
          .as(kind)
          .containsExactly("CREATE", "UPDATE");
    }
  }

  @ParameterizedTest(name = "{0}: certificates come from exactly one source")
  @MethodSource("variations")
  void certificatesHaveOneSource(String name, String[] values) {
    List<GenericKubernetesResource> objects = render(values);
    boolean certManager = List.of(values).contains("certManager.enabled=true");
    Configuration operatorConfig = configuration(objects);
    assertThat(operatorConfig.internalCertManagement().enable()).isEqualTo(!certManager);
    JsonNode certsVolume =
        StreamSupport.stream(
                Manifests.json(Manifests.one(objects, "Deployment"))
                    .at("/spec/template/spec/volumes")
                    .spliterator(),
                false)
            .filter(v -> v.path("name").asText().equals("certs"))
            .findFirst()
            .orElseThrow();
    List<JsonNode> adminRules = new ArrayList<>();
    Manifests.json(Manifests.named(objects, "ClusterRole", "berth-operator").orElseThrow())
        .path("rules")
        .forEach(
            r -> {
              if (texts(r.path("apiGroups")).contains("admissionregistration.k8s.io")) {
                adminRules.add(r);
              }
            });
    for (String kind : List.of("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")) {
      JsonNode config = Manifests.json(Manifests.one(objects, kind));
      JsonNode inject = config.at("/metadata/annotations/cert-manager.io~1inject-ca-from");
      if (certManager) {
        assertThat(inject.asText()).isEqualTo(NS + "/berth-webhook");
      } else {
        assertThat(inject.isMissingNode()).isTrue();
      }
    }
    if (certManager) {
      GenericKubernetesResource certificate = Manifests.one(objects, "Certificate");
      JsonNode spec = Manifests.json(certificate).path("spec");
      assertThat(texts(spec.path("dnsNames")))
          .containsExactlyInAnyOrder("berth." + NS + ".svc", "berth." + NS + ".svc.cluster.local");
      assertThat(certsVolume.at("/secret/secretName").asText())
          .isEqualTo(spec.path("secretName").asText());
      boolean ownIssuer = !List.of(values).contains("certManager.issuerRef.name=corp-ca");
      assertThat(Manifests.ofKind(objects, "Issuer")).hasSize(ownIssuer ? 1 : 0);
      assertThat(spec.at("/issuerRef/name").asText())
          .isEqualTo(ownIssuer ? "berth-selfsigned" : "corp-ca");
      // cert-manager's CA injector patches the caBundle; the operator needs no such right.
      assertThat(adminRules).isEmpty();
    } else {
      assertThat(Manifests.ofKind(objects, "Certificate")).isEmpty();
      assertThat(Manifests.ofKind(objects, "Issuer")).isEmpty();
      assertThat(certsVolume.at("/emptyDir/medium").asText()).isEqualTo("Memory");
      // The operator patches the caBundle of its own two configurations, named, and no others.
      Map<String, List<String>> names = new HashMap<>();
      for (JsonNode rule : adminRules) {
        assertThat(texts(rule.path("verbs"))).containsExactlyInAnyOrder("get", "update", "patch");
        names.put(texts(rule.path("resources")).get(0), texts(rule.path("resourceNames")));
      }
      assertThat(names)
          .containsOnly(
              Map.entry(
                  "validatingwebhookconfigurations",
                  List.of(
                      operatorConfig
                          .internalCertManagement()
                          .validatingWebhookConfigurationName())),
              Map.entry(
                  "mutatingwebhookconfigurations",
                  List.of(
                      operatorConfig.internalCertManagement().mutatingWebhookConfigurationName())));
    }
    boolean serviceMonitor = List.of(values).contains("metrics.serviceMonitor.enabled=true");
    assertThat(Manifests.ofKind(objects, "ServiceMonitor")).hasSize(serviceMonitor ? 1 : 0);
  }

  /**
   * Every rendered object, CRDs included, is accepted by a real API server (server-side apply) and
   * read back with the fields it was sent. Then the webhooks are exercised: with no Berth behind
   * the Service, the fail-closed ones refuse and the fail-open one lets through, and the excluded
   * namespaces are never intercepted. Runs once with defaults and once with every optional object.
   */
  @ParameterizedTest(name = "{0}: every rendered object is accepted by the API server")
  @MethodSource("installs")
  void everyRenderedObjectIsAccepted(String release, String namespace, String[] values) {
    KubernetesClient client = ChartApiServer.client();
    List<String> args = new ArrayList<>(List.of("--include-crds"));
    args.addAll(List.of(values));
    List<GenericKubernetesResource> objects =
        Manifests.parse(HelmCli.template(release, namespace, args.toArray(String[]::new)));
    assertThat(objects).isNotEmpty();
    ensureNamespace(client, namespace);
    ensureNamespace(client, "team-a");

    List<CustomResourceDefinition> crds =
        Manifests.ofKind(objects, "CustomResourceDefinition").stream()
            .map(
                o ->
                    Serialization.unmarshal(
                        Serialization.asYaml(o), CustomResourceDefinition.class))
            .toList();
    assertThat(crds).hasSize(dev.berth.api.v1beta1.BerthKinds.ALL.size());
    ChartApiServer.installCrds(crds);

    List<GenericKubernetesResource> webhooks = new ArrayList<>();
    for (GenericKubernetesResource o : objects) {
      String kind = o.getKind();
      if (kind.endsWith("WebhookConfiguration")) {
        webhooks.add(o);
      } else if (!kind.equals("CustomResourceDefinition")) {
        assertStored(client, o);
      }
    }
    assertThat(webhooks).hasSize(2);
    // The Service was stored and read back above; delete it before the webhooks exist. With the
    // Service in place but no pods behind it, the API server would dial its ClusterIP on every
    // webhook call and wait out timeoutSeconds; without it the call fails at once, which
    // exercises the same failure policies and never sends traffic off this machine.
    client.resource(Manifests.one(objects, "Service")).withTimeout(30, TimeUnit.SECONDS).delete();
    try {
      for (GenericKubernetesResource webhook : webhooks) {
        assertStored(client, webhook);
      }
      assertRbacOnTheServer(
          client,
          release,
          namespace,
          !String.join(" ", values).contains("integrations.frameworks={batch/job}"));
      if (List.of(values).contains(CHECK_CONTROLLERS)) {
        assertCheckGrantsOnTheServer(client);
      }
      assertWebhooksFailAsDesigned(
          client, namespace, !List.of(values).contains("webhooks.podTopologyGates.enabled=false"));
    } finally {
      // Left in place, the fail-closed webhooks would refuse every later ClusterQueue write on
      // this server (the samples test shares it).
      for (GenericKubernetesResource webhook : webhooks) {
        client.resource(webhook).delete();
      }
    }
    for (GenericKubernetesResource webhook : webhooks) {
      assertThat(client.resource(webhook).get()).as(Manifests.id(webhook)).isNull();
    }
  }

  /**
   * Every combination of the chart's webhook switches, with the timeouts at both ends of their
   * range and the selectors set, renders configurations the API server accepts (a dry run: the
   * server checks the rules, selectors and CEL match conditions, and stores nothing). These are the
   * objects local mode and the webhook suites register (ChartWebhooks).
   */
  @Test
  void everyWebhookValueCombinationIsAcceptedByTheApiServer() {
    KubernetesClient client = ChartApiServer.client();
    for (int i = 0; i < 16; i++) {
      List<String> values =
          new ArrayList<>(
              List.of(
                  "integrations.frameworks="
                      + ((i & 1) == 0 ? "{batch/job,jobset.x-k8s.io/jobset}" : "{batch/job}"),
                  "webhooks.defaultQueue.enabled=" + ((i & 2) == 0),
                  "webhooks.podTopologyGates.enabled=" + ((i & 4) == 0)));
      if ((i & 8) != 0) {
        values.addAll(
            List.of(
                "webhooks.timeoutSeconds=" + ((i & 1) == 0 ? 1 : 30),
                "webhooks.jobTimeoutSeconds=" + ((i & 1) == 0 ? 30 : 1),
                "webhooks.excludedNamespaces={kube-system,gpu-operator}",
                "webhooks.defaultQueue.namespaceSelector.matchLabels.team=ml",
                "webhooks.podTopologyGates.objectSelector.matchLabels.berth\\.dev/podset=main"));
      }
      dev.berth.webhook.ChartWebhooks webhooks =
          dev.berth.webhook.ChartWebhooks.render(NS, values.toArray(String[]::new));
      var validating = webhooks.validating();
      validating.getMetadata().setName("combination-" + i + "-validating");
      var mutating = webhooks.mutating();
      mutating.getMetadata().setName("combination-" + i + "-mutating");
      var admission = client.admissionRegistration().v1();
      assertThat(admission.validatingWebhookConfigurations().resource(validating).dryRun().create())
          .as("%s", values)
          .isNotNull();
      assertThat(admission.mutatingWebhookConfigurations().resource(mutating).dryRun().create())
          .as("%s", values)
          .isNotNull();
    }
  }

  static Stream<Arguments> installs() {
    return Stream.of(
        Arguments.of("berth", NS, new String[0]),
        Arguments.of(
            "berth-full",
            "berth-full",
            new String[] {
              "--set", "certManager.enabled=true",
              "--set", "metrics.serviceMonitor.enabled=true",
              "--set", "webhooks.podTopologyGates.enabled=true",
              "--set-json", CHECK_CONTROLLERS
            }));
  }

  private static void assertStored(KubernetesClient client, GenericKubernetesResource o) {
    Manifests.apply(client, o);
    GenericKubernetesResource stored = Manifests.get(client, o);
    assertThat(stored).as(Manifests.id(o)).isNotNull();
    assertThat(Manifests.missingFrom(o, stored)).as("read back %s", Manifests.id(o)).isEmpty();
  }

  /**
   * Authorization as the API server decides it (SubjectAccessReview): the operator can admit, a
   * batch admin can manage quota but not admit, a batch user can only read its namespace. The
   * aggregated roles are played by binding the roles they select, as the controller manager (absent
   * here) would aggregate them.
   */
  private static void assertRbacOnTheServer(
      KubernetesClient client, String release, String namespace, boolean podIntegration) {
    String operator = "system:serviceaccount:" + namespace + ":" + release;
    List<String> operatorGroups =
        List.of(
            "system:serviceaccounts",
            "system:serviceaccounts:" + namespace,
            "system:authenticated");
    assertThat(
            allowed(
                client,
                operator,
                operatorGroups,
                "patch",
                "berth.dev",
                "workloads",
                "status",
                "team-a",
                null))
        .isTrue();
    assertThat(
            allowed(
                client,
                operator,
                operatorGroups,
                "create",
                "berth.dev",
                "workloads",
                "",
                "team-a",
                null))
        .isTrue();
    assertThat(
            allowed(client, operator, operatorGroups, "patch", "batch", "jobs", "", "team-a", null))
        .isTrue();
    assertThat(
            allowed(
                client, operator, operatorGroups, "delete", "batch", "jobs", "", "team-a", null))
        .as("the operator suspends Jobs, never deletes them")
        .isFalse();
    assertThat(allowed(client, operator, operatorGroups, "get", "", "secrets", "", namespace, null))
        .isFalse();
    assertThat(allowed(client, operator, operatorGroups, "patch", "", "pods", "", "team-a", null))
        .as("the operator releases the topology gate of any namespace's pods")
        .isTrue();
    assertThat(allowed(client, operator, operatorGroups, "list", "", "nodes", "", null, null))
        .isTrue();
    assertThat(allowed(client, operator, operatorGroups, "create", "", "pods", "", "team-a", null))
        .as("the operator creates pods")
        .isFalse();
    // Deleting is how an evicted plain Pod stops: only with the pod integration on.
    assertThat(allowed(client, operator, operatorGroups, "delete", "", "pods", "", "team-a", null))
        .as("the operator deletes pods")
        .isEqualTo(podIntegration);
    assertThat(allowed(client, operator, operatorGroups, "patch", "", "nodes", "", null, null))
        .isFalse();
    assertThat(
            allowed(
                client,
                operator,
                operatorGroups,
                "update",
                "coordination.k8s.io",
                "leases",
                "",
                namespace,
                "berth-leader"))
        .isTrue();
    assertThat(
            allowed(
                client,
                operator,
                operatorGroups,
                "update",
                "coordination.k8s.io",
                "leases",
                "",
                "kube-system",
                "berth-leader"))
        .isFalse();

    String admin = "alice-" + release;
    String user = "bob-" + release;
    for (GenericKubernetesResource role : aggregatedBy(client, release, "batch-admin")) {
      client
          .rbac()
          .clusterRoleBindings()
          .resource(
              new ClusterRoleBindingBuilder()
                  .withNewMetadata()
                  .withName(admin + "-" + role.getMetadata().getName())
                  .endMetadata()
                  .withNewRoleRef(
                      "rbac.authorization.k8s.io", "ClusterRole", role.getMetadata().getName())
                  .addNewSubject()
                  .withKind("User")
                  .withName(admin)
                  .endSubject()
                  .build())
          .serverSideApply();
    }
    for (GenericKubernetesResource role : aggregatedBy(client, release, "batch-user")) {
      client
          .rbac()
          .roleBindings()
          .inNamespace("team-a")
          .resource(
              new RoleBindingBuilder()
                  .withNewMetadata()
                  .withName(user + "-" + role.getMetadata().getName())
                  .withNamespace("team-a")
                  .endMetadata()
                  .withNewRoleRef(
                      "rbac.authorization.k8s.io", "ClusterRole", role.getMetadata().getName())
                  .addNewSubject()
                  .withKind("User")
                  .withName(user)
                  .endSubject()
                  .build())
          .serverSideApply();
    }
    List<String> people = List.of("system:authenticated");
    assertThat(
            allowed(client, admin, people, "create", "berth.dev", "clusterqueues", "", null, null))
        .isTrue();
    assertThat(
            allowed(
                client, admin, people, "delete", "berth.dev", "resourceflavors", "", null, null))
        .isTrue();
    assertThat(
            allowed(client, admin, people, "patch", "berth.dev", "workloads", "", "team-a", null))
        .as("an admin may deactivate a Workload")
        .isTrue();
    for (String verb : List.of("create", "update", "patch")) {
      assertThat(
              allowed(
                  client, admin, people, verb, "berth.dev", "workloads", "status", "team-a", null))
          .as("batch admin %s workloads/status", verb)
          .isFalse();
      assertThat(
              allowed(
                  client, user, people, verb, "berth.dev", "workloads", "status", "team-a", null))
          .as("batch user %s workloads/status", verb)
          .isFalse();
      assertThat(allowed(client, user, people, verb, "berth.dev", "workloads", "", "team-a", null))
          .as("batch user %s workloads", verb)
          .isFalse();
    }
    assertThat(allowed(client, user, people, "list", "berth.dev", "workloads", "", "team-a", null))
        .isTrue();
    assertThat(allowed(client, user, people, "get", "berth.dev", "localqueues", "", "team-a", null))
        .isTrue();
    assertThat(allowed(client, user, people, "list", "berth.dev", "workloads", "", "team-b", null))
        .as("only in the namespace it is bound in")
        .isFalse();
  }

  /**
   * The controller listed in rbac.checkControllers, through the binding the chart renders, holds
   * its check and no other: the verb the status webhook asks for, and marking the check Active.
   */
  private static void assertCheckGrantsOnTheServer(KubernetesClient client) {
    String controller = "system:serviceaccount:capacity-system:capacity-provisioner";
    List<String> groups =
        List.of(
            "system:serviceaccounts",
            "system:serviceaccounts:capacity-system",
            "system:authenticated");
    for (String check : List.of("capacity", "budget")) {
      boolean own = check.equals("capacity");
      assertThat(
              allowed(
                  client,
                  controller,
                  groups,
                  "update-state",
                  "berth.dev",
                  "admissionchecks",
                  "",
                  null,
                  check))
          .as("update-state on check %s", check)
          .isEqualTo(own);
      for (String verb : List.of("update", "patch")) {
        assertThat(
                allowed(
                    client,
                    controller,
                    groups,
                    verb,
                    "berth.dev",
                    "admissionchecks",
                    "status",
                    null,
                    check))
            .as("%s admissionchecks/status of %s", verb, check)
            .isEqualTo(own);
      }
    }
  }

  /** The ClusterRoles an aggregated role of this release selects by label. */
  private static List<GenericKubernetesResource> aggregatedBy(
      KubernetesClient client, String release, String role) {
    GenericKubernetesResource aggregated =
        client
            .genericKubernetesResources("rbac.authorization.k8s.io/v1", "ClusterRole")
            .withName(release + "-" + role)
            .get();
    assertThat(aggregated).as(release + "-" + role).isNotNull();
    JsonNode selector =
        Manifests.json(aggregated).at("/aggregationRule/clusterRoleSelectors/0/matchLabels");
    Map<String, String> labels = new HashMap<>();
    selector.fields().forEachRemaining(f -> labels.put(f.getKey(), f.getValue().asText()));
    List<GenericKubernetesResource> selected =
        client
            .genericKubernetesResources("rbac.authorization.k8s.io/v1", "ClusterRole")
            .withLabels(labels)
            .withLabel("app.kubernetes.io/instance", release)
            .list()
            .getItems();
    assertThat(selected).as("roles aggregated into " + role).isNotEmpty();
    return selected;
  }

  private static boolean allowed(
      KubernetesClient client,
      String user,
      List<String> groups,
      String verb,
      String group,
      String resource,
      String subresource,
      String namespace,
      String name) {
    SubjectAccessReview review =
        new SubjectAccessReviewBuilder()
            .withNewSpec()
            .withUser(user)
            .withGroups(groups)
            .withResourceAttributes(
                new ResourceAttributesBuilder()
                    .withVerb(verb)
                    .withGroup(group)
                    .withResource(resource)
                    .withSubresource(subresource)
                    .withNamespace(namespace)
                    .withName(name)
                    .build())
            .endSpec()
            .build();
    return client
        .authorization()
        .v1()
        .subjectAccessReview()
        .create(review)
        .getStatus()
        .getAllowed();
  }

  /**
   * No operator runs behind the Service, so every call to the webhook fails: what gets through
   * shows each entry's failurePolicy and selectors as the API server applies them.
   */
  private static void assertWebhooksFailAsDesigned(
      KubernetesClient admin, String berthNs, boolean podGates) {
    // fabric8 retries a 500 (a failed webhook call) with backoff; here the first answer is the one.
    try (KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(admin.getConfiguration()).withRequestRetryBackoffLimit(0).build())
            .build()) {
      probeWebhooks(client, berthNs);
      if (podGates) {
        probePodWebhook(client, berthNs);
      }
    }
  }

  private static void probeWebhooks(KubernetesClient client, String berthNs) {
    String team = "team-a";
    // A managed Job: fail closed, or it could start without quota.
    assertThatThrownBy(
            () ->
                client
                    .batch()
                    .v1()
                    .jobs()
                    .inNamespace(team)
                    .resource(job("managed", Map.of("berth.dev/queue-name", "training")))
                    .create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("mjob.berth.dev");
    // An unlabelled Job: the default-queue webhook fails open, but the validating webhook sees
    // every Job (its namespace may be one Berth manages) and fails closed.
    assertThatThrownBy(
            () ->
                client
                    .batch()
                    .v1()
                    .jobs()
                    .inNamespace(team)
                    .resource(job("unmanaged", Map.of()))
                    .create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("vjob.berth.dev");
    // Berth's own namespace and kube-system are never intercepted.
    for (String ns : List.of(berthNs, "kube-system")) {
      Job excluded =
          client
              .batch()
              .v1()
              .jobs()
              .inNamespace(ns)
              .resource(job("excluded", Map.of("berth.dev/queue-name", "training")))
              .create();
      client.resource(excluded).delete();
    }
    // Berth's cluster-scoped kinds: fail closed (namespaceSelector does not apply to them).
    GenericKubernetesResource flavor =
        Serialization.unmarshal(
            """
            apiVersion: berth.dev/v1beta1
            kind: ResourceFlavor
            metadata:
              name: chart-probe
            """,
            GenericKubernetesResource.class);
    assertThatThrownBy(() -> client.resource(flavor).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("vresourceflavor.berth.dev");
  }

  private static void probePodWebhook(KubernetesClient client, String berthNs) {
    String team = "team-a";
    // A pod of a topology-aware podSet: fail closed, or it could be scheduled outside its domain.
    assertThatThrownBy(
            () ->
                client
                    .pods()
                    .inNamespace(team)
                    .resource(pod("gated", Map.of("berth.dev/podset", "main")))
                    .create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("mpod.berth.dev");
    // Every other pod never reaches Berth, and neither do pods in the excluded namespaces.
    Pod plain = client.pods().inNamespace(team).resource(pod("plain", Map.of())).create();
    client.resource(plain).delete();
    for (String ns : List.of(berthNs, "kube-system")) {
      Pod excluded =
          client
              .pods()
              .inNamespace(ns)
              .resource(pod("excluded", Map.of("berth.dev/podset", "main")))
              .create();
      client.resource(excluded).delete();
    }
  }

  private static Pod pod(String name, Map<String, String> labels) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .withRestartPolicy("Never")
        .addNewContainer()
        .withName("main")
        .withImage("busybox:1.36")
        .endContainer()
        .endSpec()
        .build();
  }

  private static void ensureNamespace(KubernetesClient client, String name) {
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .serverSideApply();
  }

  private static Job job(String name, Map<String, String> labels) {
    return new JobBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .withSuspend(true)
        .withNewTemplate()
        .withNewSpec()
        .withRestartPolicy("Never")
        .addNewContainer()
        .withName("main")
        .withImage("busybox:1.36")
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  private static List<GenericKubernetesResource> roles(List<GenericKubernetesResource> objects) {
    List<GenericKubernetesResource> roles = new ArrayList<>(Manifests.ofKind(objects, "Role"));
    roles.addAll(Manifests.ofKind(objects, "ClusterRole"));
    assertThat(roles).isNotEmpty();
    return roles;
  }

  /** The operator's configuration file as the chart renders it, read by the operator's loader. */
  private static Configuration configuration(List<GenericKubernetesResource> objects) {
    String file =
        Manifests.json(Manifests.named(objects, "ConfigMap", "berth-config").orElseThrow())
            .at("/data/config.yaml")
            .asText();
    return ConfigurationLoader.load(file, Map.of());
  }

  private static Map<String, String> env(JsonNode container) {
    Map<String, String> env = new HashMap<>();
    container
        .path("env")
        .forEach(
            e -> {
              if (e.has("value")) {
                env.put(e.path("name").asText(), e.path("value").asText());
              }
            });
    return env;
  }

  private static List<String> texts(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(v -> values.add(v.asText()));
    return values;
  }
}
