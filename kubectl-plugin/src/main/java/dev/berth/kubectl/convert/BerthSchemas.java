package dev.berth.kubectl.convert;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The OpenAPI schemas of Berth's CRDs, as the chart installs them (bundled into the plugin by its
 * build). The API server prunes a field its schema does not know without a word; convert walks the
 * same schema first so that each such field is reported instead, with its path.
 */
final class BerthSchemas {
  /** Berth's kinds and their CRD plurals (the chart's file names). */
  static final Map<String, String> PLURALS =
      Map.ofEntries(
          Map.entry("ResourceFlavor", "resourceflavors"),
          Map.entry("ClusterQueue", "clusterqueues"),
          Map.entry("LocalQueue", "localqueues"),
          Map.entry("Cohort", "cohorts"),
          Map.entry("Workload", "workloads"),
          Map.entry("WorkloadPriorityClass", "workloadpriorityclasses"),
          Map.entry("AdmissionCheck", "admissionchecks"),
          Map.entry("ProvisioningRequestConfig", "provisioningrequestconfigs"),
          Map.entry("Topology", "topologies"),
          Map.entry("UsageReport", "usagereports"),
          Map.entry("Budget", "budgets"));

  private final Map<String, JsonNode> schemas = new HashMap<>();

  private BerthSchemas() {}

  static BerthSchemas bundled() {
    BerthSchemas s = new BerthSchemas();
    for (Map.Entry<String, String> e : PLURALS.entrySet()) {
      String file = "crds/" + e.getValue() + ".berth.dev-v1.yml";
      try (InputStream in = BerthSchemas.class.getResourceAsStream(file)) {
        if (in == null) {
          throw new IllegalStateException("the plugin was built without " + file);
        }
        List<JsonNode> crd = YamlDocuments.read(in);
        for (JsonNode version : crd.get(0).path("spec").path("versions")) {
          if (version.path("name").asText().equals("v1beta1")) {
            s.schemas.put(e.getKey(), version.path("schema").path("openAPIV3Schema"));
          }
        }
      } catch (IOException ex) {
        throw new UncheckedIOException(ex);
      }
    }
    return s;
  }

  boolean has(String kind) {
    return schemas.containsKey(kind);
  }

  /**
   * Removes from {@code object} every field, below apiVersion, kind and metadata, that Berth's
   * schema for {@code kind} does not define, and every value outside an enum; reports each.
   */
  void prune(String kind, ObjectNode object, Findings findings) {
    JsonNode schema = schemas.get(kind);
    JsonNode properties = schema.path("properties");
    Iterator<Map.Entry<String, JsonNode>> fields = object.properties().iterator();
    List<String> unknown = new ArrayList<>();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      String name = f.getKey();
      if (name.equals("apiVersion") || name.equals("kind") || name.equals("metadata")) {
        continue;
      }
      if (!properties.has(name)) {
        unknown.add(name);
      } else {
        walk(f.getValue(), properties.get(name), name, findings);
      }
    }
    unknown.forEach(
        name -> {
          object.remove(name);
          findings.dropped(name, "Berth's " + kind + " has no such field");
        });
  }

  private static void walk(JsonNode value, JsonNode schema, String path, Findings findings) {
    if (schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)
        && !schema.has("properties")) {
      return;
    }
    if (value instanceof ObjectNode object) {
      JsonNode properties = schema.path("properties");
      JsonNode additional = schema.get("additionalProperties");
      boolean keepUnknown = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
      List<String> unknown = new ArrayList<>();
      List<String> badValues = new ArrayList<>();
      Iterator<Map.Entry<String, JsonNode>> fields = object.properties().iterator();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> f = fields.next();
        String name = f.getKey();
        if (properties.has(name)) {
          String child = path + "." + name;
          if (outsideEnum(f.getValue(), properties.get(name))) {
            badValues.add(name);
          } else {
            walk(f.getValue(), properties.get(name), child, findings);
          }
        } else if (additional != null && additional.isObject()) {
          walk(f.getValue(), additional, path + "[" + name + "]", findings);
        } else if (!keepUnknown) {
          unknown.add(name);
        }
      }
      for (String name : unknown) {
        object.remove(name);
        findings.dropped(path + "." + name, "Berth has no such field");
      }
      for (String name : badValues) {
        JsonNode bad = object.remove(name);
        findings.dropped(
            path + "." + name,
            bad.asText()
                + " is not one of Berth's values "
                + properties.get(name).get("enum")
                + "; Berth's default applies");
      }
    } else if (value instanceof ArrayNode array && schema.has("items")) {
      for (int i = 0; i < array.size(); i++) {
        walk(array.get(i), schema.get("items"), path + "[" + i + "]", findings);
      }
    }
  }

  private static boolean outsideEnum(JsonNode value, JsonNode schema) {
    JsonNode values = schema.get("enum");
    if (values == null || !value.isValueNode()) {
      return false;
    }
    for (JsonNode allowed : values) {
      if (allowed.asText().equals(value.asText())) {
        return false;
      }
    }
    return true;
  }
}
