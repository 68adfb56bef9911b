package dev.berth.e2e.chart;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Multi-document YAML as helm and kubectl see it, applied to and read back from an API server. */
final class Manifests {
  static final String FIELD_MANAGER = "berth-chart-test";

  private Manifests() {}

  /** Every non-empty document of a multi-document YAML stream (comments-only documents skipped). */
  static List<GenericKubernetesResource> parse(String yaml) {
    List<GenericKubernetesResource> objects = new ArrayList<>();
    for (String doc : yaml.split("(?m)^---\\s*$")) {
      boolean empty =
          doc.lines().map(String::strip).allMatch(l -> l.isEmpty() || l.startsWith("#"));
      if (!empty) {
        objects.add(Serialization.unmarshal(doc, GenericKubernetesResource.class));
      }
    }
    return objects;
  }

  static String id(GenericKubernetesResource o) {
    String ns = o.getMetadata().getNamespace();
    return o.getKind() + " " + (ns == null ? "" : ns + "/") + o.getMetadata().getName();
  }

  static List<GenericKubernetesResource> ofKind(List<GenericKubernetesResource> all, String kind) {
    return all.stream().filter(o -> kind.equals(o.getKind())).toList();
  }

  static GenericKubernetesResource one(List<GenericKubernetesResource> all, String kind) {
    List<GenericKubernetesResource> found = ofKind(all, kind);
    if (found.size() != 1) {
      throw new AssertionError("expected one " + kind + ", found " + found.size());
    }
    return found.get(0);
  }

  static Optional<GenericKubernetesResource> named(
      List<GenericKubernetesResource> all, String kind, String name) {
    return ofKind(all, kind).stream()
        .filter(o -> name.equals(o.getMetadata().getName()))
        .findFirst();
  }

  /** The object as JSON, metadata included, for path lookups. */
  static JsonNode json(GenericKubernetesResource o) {
    return Serialization.jsonMapper().valueToTree(o);
  }

  static GenericKubernetesResource apply(KubernetesClient client, GenericKubernetesResource o) {
    return client.resource(o).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
  }

  static GenericKubernetesResource get(KubernetesClient client, GenericKubernetesResource o) {
    return client.resource(o).get();
  }

  /**
   * What was sent and not found in what was stored, as JSON pointers; empty when the stored object
   * holds every field sent with the same value (it may add defaults and status).
   */
  static List<String> missingFrom(
      GenericKubernetesResource sent, GenericKubernetesResource stored) {
    List<String> missing = new ArrayList<>();
    JsonNode s = json(sent);
    JsonNode t = json(stored);
    compare(
        s.path("metadata").path("labels"),
        t.path("metadata").path("labels"),
        "/metadata/labels",
        missing);
    compare(
        s.path("metadata").path("annotations"),
        t.path("metadata").path("annotations"),
        "/metadata/annotations",
        missing);
    for (Iterator<Map.Entry<String, JsonNode>> it = s.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      if (!field.getKey().equals("metadata")) {
        compare(field.getValue(), t.path(field.getKey()), "/" + field.getKey(), missing);
      }
    }
    return missing;
  }

  private static void compare(JsonNode sent, JsonNode stored, String path, List<String> missing) {
    if (sent.isMissingNode() || sent.isNull()) {
      return;
    }
    if (sent.isContainerNode() && sent.isEmpty() && (stored.isMissingNode() || stored.isNull())) {
      return; // the API server omits empty lists and maps (omitempty)
    }
    if (sent.isObject()) {
      if (!stored.isObject()) {
        missing.add(path);
        return;
      }
      sent.fields()
          .forEachRemaining(
              f ->
                  compare(f.getValue(), stored.path(f.getKey()), path + "/" + f.getKey(), missing));
    } else if (sent.isArray()) {
      if (!stored.isArray() || stored.size() != sent.size()) {
        missing.add(path);
        return;
      }
      for (int i = 0; i < sent.size(); i++) {
        compare(sent.get(i), stored.get(i), path + "/" + i, missing);
      }
    } else if (!stored.isValueNode() || !sent.asText().equals(stored.asText())) {
      missing.add(path + " (sent " + sent + ", stored " + stored + ")");
    }
  }
}
