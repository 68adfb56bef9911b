package dev.berth.e2e.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.kubectl.convert.Finding;
import dev.berth.kubectl.convert.KueueConverter;
import dev.berth.kubectl.convert.YamlDocuments;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Kueue's own published examples (src/test/resources/kueue-examples: v0.14.8's v1beta1 and
 * v0.17.0's v1beta2), converted by {@code kubectl berth convert} and applied, as an ordinary user,
 * to a real API server with Berth's CRDs and webhooks. Every document is either accepted, or left
 * out and reported as not supported: the test names exactly which, so nothing is dropped unseen.
 */
class KueueExamplesConvertedIT {
  private static final Duration INFORMER_LAG = Duration.ofSeconds(20);
  private static final String MANAGER = "kueue-convert";

  /**
   * Objects left out in both versions: kinds Berth does not queue (the MPIJob is the mpi-operator's
   * v2beta1), and MultiKueue.
   */
  private static final List<String> NOT_SUPPORTED_IN_BOTH =
      List.of(
          "appwrapper/deployment-sample.yaml: appwrapper/sample-appwrapper-deployment",
          "appwrapper/leaderworkerset-sample.yaml: appwrapper/sample-appwrapper-lws",
          "appwrapper/pytorch-sample.yaml: appwrapper/sample-appwrapper-pytorch-job",
          "jobs/ray-cluster-sample.yaml: raycluster/raycluster-complete",
          "jobs/ray-job-sample.yaml: rayjob/rayjob-sample",
          "jobs/ray-service-sample.yaml: rayservice/default/test-rayservice",
          "jobs/sample-jaxjob.yaml: jaxjob/default/jax-simple",
          "jobs/sample-mpijob.yaml: mpijob/pi",
          "jobs/sample-paddlejob.yaml: paddlejob/default/paddle-simple-cpu",
          "jobs/sample-tfjob.yaml: tfjob/default/tensorflow-dist-mnist",
          "jobs/sample-xgboostjob.yaml: xgboostjob/default/xgboost-dist-iris-test-train",
          "multikueue/multikueue-setup.yaml: admissioncheck/sample-multikueue",
          "multikueue/multikueue-setup.yaml: multikueueconfig/multikueue-test",
          "multikueue/multikueue-setup.yaml: multikueuecluster/multikueue-test-worker1",
          "pod-based-workloads/tekton-pipeline-run.yaml: pipelinerun/kueue-test",
          "pod-based-workloads/workflow-queue-per-template.yaml: workflow/steps-",
          "pod-based-workloads/workflow-single-queue.yaml: workflow/hello-world-",
          "serving-workloads/sample-leaderworkerset.yaml: leaderworkerset/nginx-leaderworkerset");

  /** Examples v0.17.0 added that Berth has no counterpart for. */
  private static final List<String> NOT_SUPPORTED_IN_V0_17 =
      List.of(
          "jobs/ray-job-autoscaling-sample.yaml: rayjob/rayjob-autoscaling-sample",
          "jobs/sample-sparkapplication.yaml: sparkapplication/spark-pi",
          "multikueue/tas/manager-setup.yaml: admissioncheck/multikueue-ac",
          "multikueue/tas/manager-setup.yaml: multikueuecluster/worker1",
          "multikueue/tas/manager-setup.yaml: multikueuecluster/worker2",
          "multikueue/tas/manager-setup.yaml: multikueueconfig/multikueue-config",
          "serving-workloads/sample-leaderworkerset-tas.yaml: leaderworkerset/nginx-leaderworkerset");

  private final WebhookTestCluster cluster = WebhookTestCluster.get();
  private final KubernetesClient user = cluster.user();
  private final KubernetesClient admin = cluster.admin();

  @ParameterizedTest(name = "Kueue {0}")
  @ValueSource(strings = {"v0.14.8", "v0.17.0"})
  void everyExampleIsAcceptedOrReportedAsNotSupported(String release) throws IOException {
    Path root = Path.of(System.getProperty("berth.repo"), "src/test/resources/kueue-examples");
    Path dir = root.resolve(release);
    KueueConverter converter = new KueueConverter();
    java.util.Map<String, List<JsonNode>> converted = new java.util.TreeMap<>();
    TreeSet<String> notSupported = new TreeSet<>();
    int read = 0;
    for (Path file : yamlFiles(dir)) {
      String name = dir.relativize(file).toString();
      List<JsonNode> docs;
      try (InputStream in = Files.newInputStream(file)) {
        docs = YamlDocuments.read(in);
      }
      read += docs.size();
      KueueConverter.Result result = converter.convert(name, docs);
      converted.put(name, result.documents());
      long left = docs.size() - result.documents().size();
      List<Finding> reasons =
          result.findings().stream().filter(f -> f.kind() == Finding.Kind.NOT_SUPPORTED).toList();
      // Every document missing from the output is one reported as not supported, with a reason.
      assertThat(reasons).as(name).hasSize((int) left);
      reasons.forEach(
          f -> {
            assertThat(f.message()).as(f.toString()).isNotBlank();
            notSupported.add(name + ": " + f.object());
          });
    }
    List<String> expected = new ArrayList<>(NOT_SUPPORTED_IN_BOTH);
    if (release.equals("v0.17.0")) {
      expected.addAll(NOT_SUPPORTED_IN_V0_17);
    }
    assertThat(notSupported).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(converted.values().stream().mapToInt(List::size).sum())
        .as("converted documents")
        .isEqualTo(read - expected.size());

    // Kueue's examples are separate scenarios (two define Topology "default" with other levels,
    // two LocalQueue default/user-queue on other ClusterQueues): each file is applied on its own,
    // after the file that defines the LocalQueues its workloads name, then removed.
    List<String> refusals = new ArrayList<>();
    for (java.util.Map.Entry<String, List<JsonNode>> file : converted.entrySet()) {
      List<JsonNode> round = new ArrayList<>();
      for (String queue : queuesNamed(file.getValue())) {
        converted.entrySet().stream()
            .filter(e -> definesQueue(e.getValue(), queue))
            .findFirst()
            .filter(e -> !e.getKey().equals(file.getKey()))
            .ifPresent(e -> round.addAll(e.getValue()));
      }
      round.addAll(file.getValue());
      refusals.addAll(applyAndRemove(file.getKey(), round));
    }
    assertThat(refusals).as("converted documents the API server refused").isEmpty();
  }

  /** convert keeps the Kueue labels of exactly the kinds the integration registry queues. */
  @org.junit.jupiter.api.Test
  void convertQueuesTheKindsOfTheIntegrationRegistry() {
    assertThat(KueueConverter.QUEUED)
        .containsExactlyInAnyOrderElementsOf(
            java.util.Arrays.stream(dev.berth.webhook.integration.Framework.values())
                .map(f -> f.group() + "/" + f.kind())
                .toList());
  }

  /**
   * The v1beta1 forms Kueue's examples do not show (cohort, Borrow, Preempt, admissionChecks, a
   * Workload's priorityClassName and priorityClassSource, a v1alpha1 Cohort's parent), as clusters
   * installed before Kueue 0.15 hold them: converted, every object is accepted.
   */
  @org.junit.jupiter.api.Test
  void kueueV1beta1sOwnFieldsAreAcceptedOnceConverted() throws IOException {
    String kueue =
        """
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: WorkloadPriorityClass
        metadata: {name: v1beta1-high}
        value: 1000
        ---
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: ResourceFlavor
        metadata: {name: v1beta1-flavor}
        ---
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: ProvisioningRequestConfig
        metadata: {name: v1beta1-prov}
        spec:
          provisioningClassName: check-capacity.autoscaling.x-k8s.io
          retryStrategy: {backoffLimitCount: 1, backoffBaseSeconds: 0, backoffMaxSeconds: 0}
        ---
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: AdmissionCheck
        metadata: {name: v1beta1-prov}
        spec:
          controllerName: kueue.x-k8s.io/provisioning-request
          retryDelayMinutes: 15
          parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: v1beta1-prov}
        ---
        apiVersion: kueue.x-k8s.io/v1alpha1
        kind: Cohort
        metadata: {name: v1beta1-child}
        spec: {parent: v1beta1-root}
        ---
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: ClusterQueue
        metadata: {name: v1beta1-cq}
        spec:
          cohort: v1beta1-child
          namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: kueue-v1beta1}}
          admissionChecks: [v1beta1-prov]
          flavorFungibility: {whenCanBorrow: Borrow, whenCanPreempt: Preempt}
          resourceGroups:
          - coveredResources: [cpu]
            flavors: [{name: v1beta1-flavor, resources: [{name: cpu, nominalQuota: 4}]}]
        ---
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: LocalQueue
        metadata: {name: v1beta1-lq, namespace: kueue-v1beta1}
        spec: {clusterQueue: v1beta1-cq}
        ---
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: Workload
        metadata: {name: v1beta1-wl, namespace: kueue-v1beta1}
        spec:
          queueName: v1beta1-lq
          priorityClassName: v1beta1-high
          priorityClassSource: kueue.x-k8s.io/workloadpriorityclass
          priority: 1000
          podSets:
          - name: main
            count: 1
            template:
              spec:
                restartPolicy: Never
                containers:
                - {name: c, image: busybox, resources: {requests: {cpu: "1"}}}
        """;
    KueueConverter.Result result =
        new KueueConverter()
            .convert(
                "v1beta1.yaml",
                YamlDocuments.read(
                    new java.io.ByteArrayInputStream(
                        kueue.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
    assertThat(result.documents()).hasSize(8);
    assertThat(result.findings())
        .extracting(f -> f.object() + " " + f.path())
        .containsExactly("admissioncheck/v1beta1-prov spec.retryDelayMinutes");
    assertThat(applyAndRemove("v1beta1.yaml", result.documents())).isEmpty();
  }

  /**
   * Kueue accepts slices with no required or preferred level (its TAS places them anywhere);
   * Berth's webhook asks for the placement, which convert writes as unconstrained.
   */
  @org.junit.jupiter.api.Test
  void aJobWithSlicesButNoPlacementIsAcceptedOnceConverted() throws IOException {
    String kueue =
        """
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: Topology
        metadata: {name: slices}
        spec: {levels: [{nodeLabel: cloud.example.com/rack}, {nodeLabel: kubernetes.io/hostname}]}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ResourceFlavor
        metadata: {name: slices}
        spec: {nodeLabels: {pool: slices}, topologyName: slices}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ClusterQueue
        metadata: {name: slices}
        spec:
          namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: kueue-slices}}
          resourceGroups:
          - coveredResources: [cpu]
            flavors: [{name: slices, resources: [{name: cpu, nominalQuota: 8}]}]
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: LocalQueue
        metadata: {name: slices, namespace: kueue-slices}
        spec: {clusterQueue: slices}
        ---
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: sliced
          namespace: kueue-slices
          labels: {kueue.x-k8s.io/queue-name: slices}
        spec:
          parallelism: 4
          completions: 4
          suspend: true
          template:
            metadata:
              annotations:
                kueue.x-k8s.io/podset-slice-required-topology: cloud.example.com/rack
                kueue.x-k8s.io/podset-slice-size: "2"
            spec:
              restartPolicy: Never
              containers:
              - {name: c, image: busybox, resources: {requests: {cpu: 100m}}}
        """;
    KueueConverter.Result result =
        new KueueConverter()
            .convert(
                "sliced.yaml",
                YamlDocuments.read(
                    new java.io.ByteArrayInputStream(
                        kueue.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
    assertThat(result.findings()).extracting(Finding::kind).containsExactly(Finding.Kind.REWRITTEN);
    assertThat(applyAndRemove("sliced.yaml", result.documents())).isEmpty();
  }

  private List<String> applyAndRemove(String file, List<JsonNode> docs) {
    List<HasMetadata> applied = new ArrayList<>();
    List<String> refusals = new ArrayList<>();
    try {
      for (JsonNode doc : inApplyOrder(docs)) {
        GenericKubernetesResource object =
            Serialization.jsonMapper().convertValue(doc, GenericKubernetesResource.class);
        servedOrInstalled(object);
        if (object.getMetadata().getNamespace() != null) {
          cluster.ensureNamespace(object.getMetadata().getNamespace());
        }
        String refused = apply(object, applied);
        if (refused != null) {
          refusals.add(
              file
                  + ": "
                  + doc.path("kind").asText()
                  + " "
                  + object.getMetadata().getName()
                  + ": "
                  + refused);
        }
      }
    } finally {
      Collections.reverse(applied);
      // Namespaces stay: this API server runs no namespace controller to empty and remove them.
      applied.removeIf(o -> o.getKind().equals("Namespace"));
      for (HasMetadata object : applied) {
        admin.resource(object).withGracePeriod(0).delete();
      }
      for (HasMetadata object : applied) {
        admin.resource(object).waitUntilCondition(o -> o == null, 30, TimeUnit.SECONDS);
      }
    }
    return refusals;
  }

  /** namespace/name of the LocalQueues the workloads of {@code docs} are labelled for. */
  private static java.util.Set<String> queuesNamed(List<JsonNode> docs) {
    java.util.Set<String> queues = new java.util.TreeSet<>();
    for (JsonNode doc : docs) {
      String ns = doc.path("metadata").path("namespace").asText("default");
      for (JsonNode labels : doc.findValues("labels")) {
        String queue = labels.path("berth.dev/queue-name").asText("");
        if (!queue.isEmpty()) {
          queues.add(ns + "/" + queue);
        }
      }
    }
    return queues;
  }

  private static boolean definesQueue(List<JsonNode> docs, String queue) {
    return docs.stream()
        .anyMatch(
            d ->
                d.path("kind").asText().equals("LocalQueue")
                    && queue.equals(
                        d.path("metadata").path("namespace").asText("default")
                            + "/"
                            + d.path("metadata").path("name").asText()));
  }

  /**
   * As a platform team would apply a migrated directory: namespaces, then what queues refer to,
   * then queues, then the workloads (Kueue's examples are written to be applied in that order).
   */
  private static List<JsonNode> inApplyOrder(List<JsonNode> docs) {
    List<String> order =
        List.of(
            "Namespace",
            "Topology",
            "ResourceFlavor",
            "WorkloadPriorityClass",
            "ProvisioningRequestConfig",
            "AdmissionCheck",
            "Cohort",
            "ClusterQueue",
            "LocalQueue");
    List<JsonNode> sorted = new ArrayList<>(docs);
    sorted.sort(
        java.util.Comparator.comparingInt(
            d -> {
              int i = order.indexOf(d.path("kind").asText());
              return i < 0 ? order.size() : i;
            }));
    return sorted;
  }

  /** Third-party kinds that pass through unchanged (Tekton's Task) get their API, schemaless. */
  private void servedOrInstalled(GenericKubernetesResource object) {
    String apiVersion = object.getApiVersion();
    if (!apiVersion.contains("/") || served(apiVersion, object.getKind())) {
      return;
    }
    String group = apiVersion.substring(0, apiVersion.indexOf('/'));
    String version = apiVersion.substring(apiVersion.indexOf('/') + 1);
    String plural = object.getKind().toLowerCase(Locale.ROOT) + "s";
    CustomResourceDefinition crd =
        WebhookTestCluster.schemalessCrd(group, version, object.getKind(), plural);
    admin.apiextensions().v1().customResourceDefinitions().resource(crd).serverSideApply();
    await("API of " + apiVersion + " " + object.getKind())
        .atMost(Duration.ofSeconds(30))
        .until(() -> served(apiVersion, object.getKind()));
  }

  private boolean served(String apiVersion, String kind) {
    try {
      APIResourceList list = admin.getApiResources(apiVersion);
      return list != null && list.getResources().stream().anyMatch(r -> r.getKind().equals(kind));
    } catch (KubernetesClientException e) {
      return false;
    }
  }

  /**
   * Applies (or, with only a generateName, creates) the object as the user; null once accepted, or
   * the last refusal if it is refused for longer than the webhook's informers can lag.
   */
  private String apply(GenericKubernetesResource object, List<HasMetadata> applied) {
    AtomicReference<String> refusal = new AtomicReference<>();
    AtomicReference<HasMetadata> stored = new AtomicReference<>();
    try {
      await()
          .atMost(INFORMER_LAG)
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                try {
                  stored.set(
                      object.getMetadata().getName() == null
                          ? user.resource(object).create()
                          : user.resource(object)
                              .fieldManager(MANAGER)
                              .forceConflicts()
                              .serverSideApply());
                  return true;
                } catch (KubernetesClientException e) {
                  refusal.set(
                      e.getCode()
                          + " "
                          + (e.getStatus() != null ? e.getStatus().getMessage() : e.getMessage())
                          + (e.getCause() == null ? "" : " (" + e.getCause() + ")"));
                  return false;
                }
              });
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      return refusal.get();
    }
    applied.add(stored.get());
    return null;
  }

  private static List<Path> yamlFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
  }
}
