package dev.berth.kubectl.convert;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Kueue YAML ({@code kueue.x-k8s.io} v1beta1 and v1beta2, and the Jobs that name Kueue's queues)
 * into Berth's. Field by field as Kueue's own v1beta1→v1beta2 conversion does, then to Berth's
 * group; what Berth has no field or kind for is reported, never dropped in silence.
 */
public final class KueueConverter {
  static final String KUEUE_GROUP = "kueue.x-k8s.io";
  static final String BERTH_API_VERSION = "berth.dev/v1beta1";

  /** Kueue's ProvisioningRequest check controller, and Berth's. */
  static final String KUEUE_PROVISIONING = "kueue.x-k8s.io/provisioning-request";

  static final String BERTH_PROVISIONING = "berth.dev/provisioning-request";

  /**
   * The kinds Berth queues, as group/kind: the integration registry's (the webhook module's {@code
   * Framework}, which KueueExamplesConvertedIT holds this list equal to).
   */
  public static final Set<String> QUEUED =
      Set.of(
          "batch/Job",
          "jobset.x-k8s.io/JobSet",
          "/Pod",
          "apps/Deployment",
          "apps/StatefulSet",
          "leaderworkerset.x-k8s.io/LeaderWorkerSet",
          "ray.io/RayJob",
          "ray.io/RayCluster",
          "kubeflow.org/PyTorchJob",
          "kubeflow.org/MPIJob",
          "trainer.kubeflow.org/TrainJob");

  /**
   * The version Berth runs of a queued kind that has others: the training operator's v1 MPIJob, not
   * the mpi-operator's v2beta1 that Kueue's kubeflow.org/mpijob framework runs.
   */
  private static final Map<String, String> ONLY_VERSION = Map.of("kubeflow.org/MPIJob", "v1");

  /**
   * The objects whose Kueue labels Berth reads: the kinds it queues, and CronJobs (their Jobs carry
   * the job template's labels). Every other kind with Kueue labels would run unqueued under Berth.
   */
  static final Set<String> MANAGED =
      java.util.stream.Stream.concat(QUEUED.stream(), Set.of("batch/CronJob").stream())
          .collect(java.util.stream.Collectors.toUnmodifiableSet());

  /** Kueue's kinds Berth has no counterpart for, and what to do instead. */
  private static final Map<String, String> KUEUE_ONLY =
      Map.of(
          "MultiKueueCluster",
              "Berth has no MultiKueue: it admits workloads in its own cluster only",
          "MultiKueueConfig",
              "Berth has no MultiKueue: it admits workloads in its own cluster only");

  /** Set by the API server; an object of another group is a new object, so they go. */
  private static final List<String> SERVER_METADATA =
      List.of(
          "uid",
          "resourceVersion",
          "generation",
          "creationTimestamp",
          "managedFields",
          "selfLink",
          "deletionTimestamp",
          "deletionGracePeriodSeconds");

  private final BerthSchemas schemas = BerthSchemas.bundled();

  /** The output of one conversion: Berth's documents in input order, and what was reported. */
  public record Result(List<JsonNode> documents, List<Finding> findings) {}

  /** Converts the documents of one source ({@code source} names it in the findings). */
  public Result convert(String source, List<JsonNode> read) {
    List<JsonNode> documents = listsOpened(read);
    List<JsonNode> out = new ArrayList<>();
    List<Finding> findings = new ArrayList<>();
    for (int i = 0; i < documents.size(); i++) {
      JsonNode doc = documents.get(i);
      if (!(doc instanceof ObjectNode object) || !object.has("kind")) {
        findings.add(
            new Finding(
                source,
                "document " + (i + 1),
                "",
                Finding.Kind.NOT_SUPPORTED,
                "not a Kubernetes object (no kind)"));
        continue;
      }
      ObjectNode copy = object.deepCopy();
      Findings f = new Findings(source, id(copy), findings);
      if (convertOne(copy, f)) {
        remainingKueueNames(copy, "", f);
        out.add(copy);
      }
    }
    return new Result(out, findings);
  }

  /** {@code kubectl get -o yaml} of several objects is one List: its items are the documents. */
  private static List<JsonNode> listsOpened(List<JsonNode> read) {
    List<JsonNode> documents = new ArrayList<>();
    for (JsonNode doc : read) {
      if (doc.path("kind").asText().endsWith("List") && doc.path("items").isArray()) {
        doc.path("items").forEach(documents::add);
      } else {
        documents.add(doc);
      }
    }
    return documents;
  }

  /** Converts {@code o} in place; false when it is left out of the output. */
  private boolean convertOne(ObjectNode o, Findings f) {
    String apiVersion = o.path("apiVersion").asText();
    String kind = o.path("kind").asText();
    String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
    if (group.equals(KUEUE_GROUP)) {
      return kueueObject(o, kind, f);
    }
    if (!KueueLabels.present(o)) {
      return true;
    }
    if (!MANAGED.contains(group + "/" + kind)) {
      f.notSupported(
          "Berth queues "
              + QUEUED.stream().map(k -> k.substring(k.indexOf('/') + 1) + "s").sorted().toList()
              + " and CronJobs' Jobs, not a "
              + kind
              + " ("
              + apiVersion
              + "): under Berth its Kueue labels would do nothing and it would run unqueued");
      return false;
    }
    if ("ray.io".equals(group) && autoscaled(o)) {
      f.notSupported(
          "Berth runs a Ray cluster at the size its Workload was admitted for: in-tree"
              + " autoscaling (enableInTreeAutoscaling) needs Kueue's elastic workloads, which"
              + " Berth has not; set it false and size the worker groups' replicas");
      return false;
    }
    String version = ONLY_VERSION.get(group + "/" + kind);
    if (version != null && !apiVersion.equals(group + "/" + version)) {
      f.notSupported(
          "Berth queues the "
              + kind
              + " of "
              + group
              + "/"
              + version
              + " (the Kubeflow training operator's), not "
              + apiVersion
              + ": under Berth its Kueue labels would do nothing and it would run unqueued");
      return false;
    }
    KueueLabels.convert(o, "", f);
    return true;
  }

  /** A RayCluster, or a RayJob's cluster, with KubeRay's autoscaler on. */
  private static boolean autoscaled(ObjectNode o) {
    return o.at("/spec/enableInTreeAutoscaling").asBoolean(false)
        || o.at("/spec/rayClusterSpec/enableInTreeAutoscaling").asBoolean(false);
  }

  private boolean kueueObject(ObjectNode o, String kind, Findings f) {
    if (KUEUE_ONLY.containsKey(kind)) {
      f.notSupported(KUEUE_ONLY.get(kind));
      return false;
    }
    if (!schemas.has(kind)) {
      f.notSupported("Berth has no " + kind);
      return false;
    }
    o.put("apiVersion", BERTH_API_VERSION);
    if (o.get("metadata") instanceof ObjectNode meta) {
      SERVER_METADATA.forEach(meta::remove);
      if (meta.get("annotations") instanceof ObjectNode annotations) {
        // kubectl's copy of the Kueue object as last applied; the next apply writes Berth's.
        annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
        if (annotations.isEmpty()) {
          meta.remove("annotations");
        }
      }
    }
    if (o.has("status")) {
      o.remove("status");
      f.dropped("status", "written by Berth's operator, not applied");
    }
    ObjectNode spec = o.get("spec") instanceof ObjectNode s ? s : null;
    if (spec != null) {
      switch (kind) {
        case "ClusterQueue" -> KueueFields.clusterQueue(spec, f);
        case "Cohort" -> KueueFields.cohort(spec, f);
        case "Workload" -> KueueFields.workload(spec, f);
        case "AdmissionCheck" -> {
          if (!KueueFields.admissionCheck(spec, f)) {
            return false;
          }
        }
        default -> {}
      }
    }
    KueueLabels.convert(o, "", f);
    schemas.prune(kind, o, f);
    return true;
  }

  /** Anything still naming Kueue's group after conversion is reported, as written. */
  private static void remainingKueueNames(JsonNode node, String path, Findings f) {
    if (node.isObject()) {
      node.properties()
          .iterator()
          .forEachRemaining(
              e -> {
                String child = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
                if (e.getKey().contains(KUEUE_GROUP)) {
                  f.note(child, "still names Kueue's API group; convert leaves it as written");
                }
                remainingKueueNames(e.getValue(), child, f);
              });
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        remainingKueueNames(node.get(i), path + "[" + i + "]", f);
      }
    } else if (node.isTextual() && node.asText().contains(KUEUE_GROUP)) {
      f.note(path, node.asText() + " still names Kueue's API group; convert leaves it as written");
    }
  }

  static String id(JsonNode o) {
    JsonNode meta = o.path("metadata");
    String name = meta.path("name").asText(meta.path("generateName").asText("?"));
    String ns = meta.path("namespace").asText("");
    return o.path("kind").asText().toLowerCase(java.util.Locale.ROOT)
        + "/"
        + (ns.isEmpty() ? "" : ns + "/")
        + name;
  }

  static ArrayNode array() {
    return JsonNodeFactory.instance.arrayNode();
  }
}
