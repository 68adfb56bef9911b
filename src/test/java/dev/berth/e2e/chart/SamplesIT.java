package dev.berth.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * samples/ applied in file order, as `kubectl apply -f samples/` does, to a real API server; each
 * object is stored and read back, and what the comments claim is checked where the API server alone
 * can tell (quotas add up, references resolve, selectors select). How the operator admits the
 * sample Jobs is the operator end-to-end suite's business.
 */
class SamplesIT {
  private static final Path SAMPLES = Repo.root().resolve("samples");
  private static final String API = "berth.dev/v1beta1";

  /** File name to the objects it holds, in apply order. */
  private static final Map<String, List<GenericKubernetesResource>> FILES = new LinkedHashMap<>();

  private static KubernetesClient client;

  @BeforeAll
  static void applySamplesInOrder() {
    client = ChartApiServer.client();
    for (Path file : sampleFiles()) {
      List<GenericKubernetesResource> objects = Manifests.parse(ChartApiServer.read(file));
      for (GenericKubernetesResource o : objects) {
        Manifests.apply(client, o);
      }
      FILES.put(file.getFileName().toString(), objects);
    }
  }

  private static List<Path> sampleFiles() {
    try (Stream<Path> files = Files.list(SAMPLES)) {
      return files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @TestFactory
  Stream<DynamicTest> everySampleIsStoredAndReadBack() {
    return FILES.entrySet().stream()
        .map(
            file ->
                DynamicTest.dynamicTest(
                    file.getKey(),
                    () -> {
                      assertThat(file.getValue()).isNotEmpty();
                      for (GenericKubernetesResource sent : file.getValue()) {
                        GenericKubernetesResource stored = Manifests.get(client, sent);
                        assertThat(stored).as(Manifests.id(sent)).isNotNull();
                        assertThat(Manifests.missingFrom(sent, stored))
                            .as("read back %s", Manifests.id(sent))
                            .isEmpty();
                      }
                    }));
  }

  @Test
  void everyFileIsNumberedAndStartsWithAComment() throws IOException {
    List<Path> files = sampleFiles();
    assertThat(files).hasSizeGreaterThanOrEqualTo(10);
    for (Path file : files) {
      assertThat(file.getFileName().toString()).matches("[0-9]{2}-[a-z0-9-]+\\.yaml");
      assertThat(Files.readString(file)).as(file.toString()).startsWith("#");
    }
    // Namespaces come first, so kubectl can create everything namespaced after them.
    assertThat(FILES.values().iterator().next()).allMatch(o -> o.getKind().equals("Namespace"));
  }

  @Test
  void everyKindAPlatformTeamNeedsIsThere() {
    assertThat(all().stream().map(GenericKubernetesResource::getKind).distinct())
        .contains(
            "Namespace",
            "Topology",
            "ResourceFlavor",
            "Cohort",
            "ClusterQueue",
            "WorkloadPriorityClass",
            "LocalQueue",
            "Job",
            "JobSet");
  }

  /** The cluster the comments in 02 and 03 describe, and what the quotas must add up to. */
  @Test
  void nominalQuotasAddUpToTheDescribedCluster() {
    Map<String, BigDecimal> total = new HashMap<>();
    for (GenericKubernetesResource quotaHolder : berth("ClusterQueue", "Cohort")) {
      forEachQuota(
          quotaHolder,
          (flavor, resource, quota) ->
              total.merge(
                  flavor + " " + resource.path("name").asText(),
                  amount(resource.path("nominalQuota")),
                  BigDecimal::add));
    }
    assertThat(total)
        .containsEntry("h100 nvidia.com/gpu", new BigDecimal(32))
        .containsEntry("a100 nvidia.com/gpu", new BigDecimal(64))
        .containsEntry("spot-a100 nvidia.com/gpu", new BigDecimal(16))
        .containsEntry("a100-mig-1g nvidia.com/mig-1g.10gb", new BigDecimal(112))
        .containsEntry("l4-timesliced nvidia.com/gpu.shared", new BigDecimal(16));
  }

  @Test
  void limitsAreConsistent() {
    for (GenericKubernetesResource cq : berth("ClusterQueue")) {
      boolean inCohort = spec(cq).has("cohortName");
      forEachQuota(
          cq,
          (flavor, resource, quota) -> {
            String where = cq.getMetadata().getName() + " " + flavor + " " + resource.path("name");
            if (resource.has("lendingLimit")) {
              assertThat(amount(resource.path("lendingLimit")))
                  .as(where + " lendingLimit <= nominalQuota")
                  .isLessThanOrEqualTo(amount(resource.path("nominalQuota")));
            }
            if (!inCohort) {
              assertThat(resource.has("borrowingLimit") || resource.has("lendingLimit")).isFalse();
            }
          });
    }
    // The spot pool is the cohort's: teams own none of it and can only borrow it.
    for (GenericKubernetesResource cq : berth("ClusterQueue")) {
      forEachQuota(
          cq,
          (flavor, resource, quota) -> {
            if (flavor.equals("spot-a100")) {
              assertThat(amount(resource.path("nominalQuota"))).isZero();
              assertThat(resource.has("borrowingLimit")).isTrue();
            }
          });
    }
  }

  @Test
  void everyReferenceResolves() {
    Set<String> flavors = names("ResourceFlavor");
    Set<String> topologies = names("Topology");
    Set<String> clusterQueues = names("ClusterQueue");
    for (GenericKubernetesResource holder : berth("ClusterQueue", "Cohort")) {
      forEachQuota(
          holder,
          (flavor, resource, quota) ->
              assertThat(flavors).as(Manifests.id(holder)).contains(flavor));
      if (spec(holder).has("cohortName")) {
        assertThat(names("Cohort")).contains(spec(holder).path("cohortName").asText());
      }
    }
    for (GenericKubernetesResource flavor : berth("ResourceFlavor")) {
      if (spec(flavor).has("topologyName")) {
        assertThat(topologies).contains(spec(flavor).path("topologyName").asText());
      }
    }
    for (GenericKubernetesResource lq : berth("LocalQueue")) {
      String cqName = spec(lq).path("clusterQueue").asText();
      assertThat(clusterQueues).as(Manifests.id(lq)).contains(cqName);
      // The ClusterQueue's namespaceSelector, evaluated by the API server, selects the namespace.
      LabelSelector selector =
          Serialization.jsonMapper()
              .convertValue(
                  spec(stored("ClusterQueue", cqName)).path("namespaceSelector"),
                  LabelSelector.class);
      List<String> selected =
          client.namespaces().withLabelSelector(selector).list().getItems().stream()
              .map(Namespace::getMetadata)
              .map(m -> m.getName())
              .toList();
      assertThat(selected)
          .as(Manifests.id(lq) + " selected by " + cqName)
          .contains(lq.getMetadata().getNamespace());
    }
  }

  @Test
  void jobsAreSubmittedSuspendedToExistingQueuesAndClasses() {
    Map<String, Integer> priorities = new HashMap<>();
    berth("WorkloadPriorityClass")
        .forEach(
            c ->
                priorities.put(c.getMetadata().getName(), Manifests.json(c).path("value").asInt()));
    List<GenericKubernetesResource> jobs = new ArrayList<>(ofKind("Job"));
    jobs.addAll(ofKind("JobSet"));
    assertThat(jobs).hasSizeGreaterThanOrEqualTo(4);
    for (GenericKubernetesResource job : jobs) {
      GenericKubernetesResource stored = Manifests.get(client, job);
      JsonNode json = Manifests.json(stored);
      String id = Manifests.id(job);
      assertThat(json.at("/spec/suspend").asBoolean()).as(id + " suspend").isTrue();
      String queue = stored.getMetadata().getLabels().get("berth.dev/queue-name");
      GenericKubernetesResource lq =
          client
              .genericKubernetesResources(API, "LocalQueue")
              .inNamespace(stored.getMetadata().getNamespace())
              .withName(queue)
              .get();
      assertThat(lq).as(id + " LocalQueue " + queue).isNotNull();
      assertThat(priorities)
          .containsKey(stored.getMetadata().getLabels().get("berth.dev/priority-class"));
      // What it asks for is covered by the ClusterQueue behind its LocalQueue.
      GenericKubernetesResource cq = stored("ClusterQueue", spec(lq).path("clusterQueue").asText());
      List<String> covered = new ArrayList<>();
      spec(cq)
          .path("resourceGroups")
          .forEach(g -> g.path("coveredResources").forEach(r -> covered.add(r.asText())));
      List<String> topologyLevels = topologyLevelsOf(cq);
      for (JsonNode pod : podTemplates(json)) {
        for (JsonNode c : pod.at("/spec/containers")) {
          c.at("/resources/requests")
              .fieldNames()
              .forEachRemaining(r -> assertThat(covered).as(id + " requests " + r).contains(r));
          c.at("/resources/limits")
              .fieldNames()
              .forEachRemaining(r -> assertThat(covered).as(id + " limits " + r).contains(r));
        }
        pod.at("/metadata/annotations")
            .fields()
            .forEachRemaining(
                a -> {
                  if (a.getKey().startsWith("berth.dev/podset-")) {
                    assertThat(topologyLevels)
                        .as(id + " " + a.getKey())
                        .contains(a.getValue().asText());
                  }
                });
      }
    }
    // team-llm may preempt borrowers up to this priority: development yes, production never.
    int threshold =
        spec(stored("ClusterQueue", "team-llm"))
            .at("/preemption/borrowWithinCohort/maxPriorityThreshold")
            .asInt();
    assertThat(priorities.get("development")).isLessThanOrEqualTo(threshold);
    assertThat(priorities.get("production")).isGreaterThan(threshold);
  }

  /** MIG and time-sliced flavors are kept apart from whole-GPU ones (03). */
  @Test
  void sharedGpuFlavorsAreKeptApart() {
    Set<String> shared = Set.of("a100-mig-1g", "l4-timesliced");
    for (GenericKubernetesResource cq : berth("ClusterQueue")) {
      List<String> flavors = new ArrayList<>();
      forEachQuota(cq, (flavor, resource, quota) -> flavors.add(flavor));
      boolean hasShared = flavors.stream().anyMatch(shared::contains);
      if (hasShared) {
        assertThat(flavors).as(cq.getMetadata().getName()).allMatch(shared::contains);
        assertThat(spec(cq).has("cohortName")).isFalse();
      }
    }
    // Each shared flavor's nodes carry a taint that no exclusive flavor tolerates, so a pod
    // admitted on an exclusive flavor can never land on a shared-GPU node.
    for (GenericKubernetesResource sharedFlavor : berth("ResourceFlavor")) {
      if (!shared.contains(sharedFlavor.getMetadata().getName())) {
        continue;
      }
      for (GenericKubernetesResource exclusive : berth("ResourceFlavor")) {
        if (shared.contains(exclusive.getMetadata().getName())) {
          continue;
        }
        boolean fenced = false;
        for (JsonNode taint : spec(sharedFlavor).path("nodeTaints")) {
          fenced |= !tolerates(spec(exclusive).path("tolerations"), taint);
        }
        assertThat(fenced)
            .as(
                "%s nodes fenced off from %s",
                sharedFlavor.getMetadata().getName(), exclusive.getMetadata().getName())
            .isTrue();
      }
    }
    // And every flavor tolerates its own NoSchedule taints, so what it admits can land.
    for (GenericKubernetesResource flavor : berth("ResourceFlavor")) {
      for (JsonNode taint : spec(flavor).path("nodeTaints")) {
        assertThat(tolerates(spec(flavor).path("tolerations"), taint))
            .as(flavor.getMetadata().getName() + " tolerates " + taint)
            .isTrue();
      }
    }
  }

  private static boolean tolerates(JsonNode tolerations, JsonNode taint) {
    for (JsonNode t : tolerations) {
      boolean keyMatches = t.path("key").asText().equals(taint.path("key").asText());
      boolean valueMatches =
          t.path("operator").asText("Equal").equals("Exists")
              || t.path("value").asText().equals(taint.path("value").asText());
      boolean effectMatches =
          !t.has("effect") || t.path("effect").asText().equals(taint.path("effect").asText());
      if (keyMatches && valueMatches && effectMatches) {
        return true;
      }
    }
    return false;
  }

  private static List<String> topologyLevelsOf(GenericKubernetesResource cq) {
    List<String> levels = new ArrayList<>();
    forEachQuota(
        cq,
        (flavor, resource, quota) -> {
          JsonNode topology = spec(stored("ResourceFlavor", flavor)).path("topologyName");
          if (!topology.isMissingNode()) {
            spec(stored("Topology", topology.asText()))
                .path("levels")
                .forEach(l -> levels.add(l.path("nodeLabel").asText()));
          }
        });
    return levels;
  }

  private static List<JsonNode> podTemplates(JsonNode jobOrJobSet) {
    List<JsonNode> templates = new ArrayList<>();
    if (jobOrJobSet.path("kind").asText().equals("Job")) {
      templates.add(jobOrJobSet.at("/spec/template"));
    } else {
      jobOrJobSet
          .at("/spec/replicatedJobs")
          .forEach(r -> templates.add(r.at("/template/spec/template")));
    }
    return templates;
  }

  private interface QuotaVisitor {
    void visit(String flavor, JsonNode resource, JsonNode quotaHolder);
  }

  private static void forEachQuota(GenericKubernetesResource holder, QuotaVisitor visitor) {
    for (JsonNode group : spec(holder).path("resourceGroups")) {
      for (JsonNode flavor : group.path("flavors")) {
        for (JsonNode resource : flavor.path("resources")) {
          visitor.visit(flavor.path("name").asText(), resource, spec(holder));
        }
      }
    }
  }

  private static BigDecimal amount(JsonNode quantity) {
    return Quantity.getAmountInBytes(new Quantity(quantity.asText()));
  }

  private static JsonNode spec(GenericKubernetesResource o) {
    return Manifests.json(o).path("spec");
  }

  private static List<GenericKubernetesResource> all() {
    return FILES.values().stream().flatMap(List::stream).toList();
  }

  private static List<GenericKubernetesResource> ofKind(String kind) {
    return Manifests.ofKind(all(), kind);
  }

  /** The stored objects of Berth kinds, as the API server returns them. */
  private static List<GenericKubernetesResource> berth(String... kinds) {
    List<GenericKubernetesResource> stored = new ArrayList<>();
    for (String kind : kinds) {
      for (GenericKubernetesResource o : ofKind(kind)) {
        stored.add(Manifests.get(client, o));
      }
    }
    return stored;
  }

  private static Set<String> names(String kind) {
    Set<String> names = new java.util.HashSet<>();
    ofKind(kind).forEach(o -> names.add(o.getMetadata().getName()));
    return names;
  }

  private static GenericKubernetesResource stored(String kind, String name) {
    GenericKubernetesResource o = client.genericKubernetesResources(API, kind).withName(name).get();
    assertThat(o).as(kind + " " + name).isNotNull();
    return o;
  }
}
