package dev.berth.kubectl.convert;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Kueue's labels and annotations, wherever a {@code metadata} sits in an object (the object's own,
 * a Job's pod template, a CronJob's job template, a JobSet's replicated Jobs): the ones Berth reads
 * under its own prefix are renamed, the others are left out and reported.
 */
final class KueueLabels {
  static final String PREFIX = "kueue.x-k8s.io/";
  private static final String BERTH = "berth.dev/";

  /** Kueue's keys that Berth reads with the same meaning, as labels or as annotations. */
  private static final Set<String> LABELS =
      Set.of("queue-name", "priority-class", "max-exec-time-seconds");

  private static final Set<String> ANNOTATIONS =
      Set.of(
          "job-min-parallelism",
          "podset-required-topology",
          "podset-preferred-topology",
          "podset-unconstrained-topology",
          "podset-slice-required-topology",
          "podset-slice-size",
          "podset-group-name");

  private static final String SLICE_LEVEL = BERTH + "podset-slice-required-topology";
  private static final String SLICE_SIZE = BERTH + "podset-slice-size";
  private static final List<String> MODES =
      List.of(
          BERTH + "podset-required-topology",
          BERTH + "podset-preferred-topology",
          BERTH + "podset-unconstrained-topology");

  private KueueLabels() {}

  /**
   * Whether {@code node} has a label or annotation of Kueue's anywhere: in a metadata, or in a map
   * named labels or annotations elsewhere (an Argo Workflow's podMetadata).
   */
  static boolean present(JsonNode node) {
    if (node.isObject()) {
      for (var it = node.properties().iterator(); it.hasNext(); ) {
        var f = it.next();
        if ((f.getKey().equals("labels") || f.getKey().equals("annotations"))
            && hasKueueKey(f.getValue())) {
          return true;
        }
      }
    }
    for (JsonNode child : node) {
      if (present(child)) {
        return true;
      }
    }
    return false;
  }

  /** Renames or removes Kueue's keys in every metadata of {@code node}; {@code path} is its own. */
  static void convert(JsonNode node, String path, Findings findings) {
    if (node instanceof ObjectNode object) {
      List<Map.Entry<String, JsonNode>> fields = new ArrayList<>();
      fields.addAll(object.properties());
      for (Map.Entry<String, JsonNode> f : fields) {
        String child = path.isEmpty() ? f.getKey() : path + "." + f.getKey();
        if (f.getKey().equals("metadata") && f.getValue() instanceof ObjectNode meta) {
          queueNameAnnotationToLabel(meta, child, findings);
          rename(meta, "labels", LABELS, child, findings);
          rename(meta, "annotations", ANNOTATIONS, child, findings);
          slicesNeedAPlacement(meta, child, findings);
        }
        convert(f.getValue(), child, findings);
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        convert(node.get(i), path + "[" + i + "]", findings);
      }
    }
  }

  /**
   * Kueue still reads the queue name from an annotation (its older form); Berth only from the
   * label, so the annotation becomes the label rather than leave the Job unqueued.
   */
  private static void queueNameAnnotationToLabel(ObjectNode meta, String path, Findings findings) {
    String key = PREFIX + "queue-name";
    if (!(meta.get("annotations") instanceof ObjectNode annotations) || !annotations.has(key)) {
      return;
    }
    JsonNode queue = annotations.remove(key);
    if (annotations.isEmpty()) {
      meta.remove("annotations");
    }
    ObjectNode labels = meta.get("labels") instanceof ObjectNode l ? l : meta.putObject("labels");
    if (labels.has(key)) {
      findings.dropped(
          path + ".annotations[" + key + "]", "the queue-name label is set too, and wins");
      return;
    }
    labels.set(key, queue);
    findings.rewritten(
        path + ".labels[" + BERTH + "queue-name]",
        "from the annotation " + key + ": Berth reads the queue name from the label only");
  }

  private static boolean hasKueueKey(JsonNode map) {
    if (map == null || !map.isObject()) {
      return false;
    }
    for (var it = map.fieldNames(); it.hasNext(); ) {
      if (isKueue(it.next())) {
        return true;
      }
    }
    return false;
  }

  /** {@code kueue.x-k8s.io/...} and its subdomains' keys ({@code provreq.kueue.x-k8s.io/...}). */
  static boolean isKueue(String key) {
    int slash = key.indexOf('/');
    String prefix = slash < 0 ? "" : key.substring(0, slash + 1);
    return prefix.equals(PREFIX) || prefix.endsWith("." + PREFIX);
  }

  private static void rename(
      ObjectNode meta, String field, Set<String> known, String path, Findings findings) {
    if (!(meta.get(field) instanceof ObjectNode map)) {
      return;
    }
    Map<String, JsonNode> out = new LinkedHashMap<>();
    map.properties()
        .iterator()
        .forEachRemaining(
            e -> {
              String key = e.getKey();
              if (!isKueue(key)) {
                out.put(key, e.getValue());
                return;
              }
              String name = key.substring(key.indexOf('/') + 1);
              if (key.startsWith(PREFIX) && known.contains(name)) {
                out.put(BERTH + name, e.getValue());
              } else {
                findings.dropped(path + "." + field + "[" + key + "]", why(key, name, field));
              }
            });
    map.removeAll();
    out.forEach(map::set);
  }

  private static String why(String key, String name, String field) {
    if (key.startsWith("provreq.")) {
      return "Berth passes no ProvisioningRequest parameters from the Job; set them in the"
          + " ProvisioningRequestConfig's spec.parameters";
    }
    if (name.startsWith("pod-group-")) {
      return "Berth has no pod groups (it queues Jobs and JobSets, not plain Pods)";
    }
    if (name.equals("elastic-job")) {
      return "Berth does not resize an admitted Job (elastic Jobs): the Job is queued at its size";
    }
    if (key.startsWith(PREFIX) && (LABELS.contains(name) || ANNOTATIONS.contains(name))) {
      return "Berth reads berth.dev/"
          + name
          + " as "
          + (LABELS.contains(name) ? "a label" : "an annotation")
          + ", not as "
          + (field.equals("labels") ? "a label" : "an annotation");
    }
    return "Berth has no " + key.substring(0, key.indexOf('/') + 1) + name + " " + field;
  }

  /**
   * Kueue places a podSet that names a slice level but no placement in slices anywhere; Berth asks
   * for the placement in words: unconstrained, in slices, which is what Kueue does.
   */
  private static void slicesNeedAPlacement(ObjectNode meta, String path, Findings findings) {
    if (!(meta.get("annotations") instanceof ObjectNode annotations)) {
      return;
    }
    boolean slices = annotations.has(SLICE_LEVEL) && annotations.has(SLICE_SIZE);
    if (slices && MODES.stream().noneMatch(annotations::has)) {
      annotations.put(MODES.get(2), "true");
      findings.rewritten(
          path + ".annotations[" + MODES.get(2) + "]",
          "added \"true\": Kueue places slices with no podset-required- or preferred-topology"
              + " anywhere in the topology, which Berth calls unconstrained");
    }
  }
}
