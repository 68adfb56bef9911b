package dev.berth.webhook.mutation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code compatibility.kueueLabels}: Kueue's labels and annotations, on a workload and in every pod
 * template it holds (a Job's, a JobSet's replicated jobs', a CronJob's job template), are copied to
 * Berth's names when Berth's is absent, so that a team's manifests and Helm charts written for
 * Kueue run unchanged. Berth's own key wins where both are set; Kueue's stay, so the object reads
 * the same to both controllers (which must not manage the same namespace at once).
 *
 * <p>Only keys Berth reads with the same meaning are copied; anything else of Kueue's is left as it
 * is. The chart calls this before every other webhook of Berth's on create, so the rules that
 * follow see the Berth names.
 */
public final class KueueLabelsDefaulter implements Defaulter {
  static final String KUEUE = "kueue.x-k8s.io/";
  static final String BERTH = "berth.dev/";

  /** Kueue's label names Berth reads as labels. */
  static final Set<String> LABELS =
      Set.of("queue-name", "priority-class", "max-exec-time-seconds", "pod-group-name");

  /** Kueue's annotation names Berth reads as annotations. */
  static final Set<String> ANNOTATIONS =
      Set.of(
          "job-min-parallelism",
          "podset-required-topology",
          "podset-preferred-topology",
          "podset-unconstrained-topology",
          "podset-slice-required-topology",
          "podset-slice-size",
          "podset-group-name",
          "pod-group-total-count",
          "retriable-in-group");

  private static final Map<String, Set<String>> KNOWN =
      Map.of("labels", LABELS, "annotations", ANNOTATIONS);

  @Override
  public void apply(ObjectNode object, String namespace) {
    copyIn(object);
  }

  /** Every metadata in the object's tree but its status: its own and its templates'. */
  private static void copyIn(JsonNode node) {
    if (!(node instanceof ObjectNode o)) {
      if (node != null && node.isArray()) {
        node.forEach(KueueLabelsDefaulter::copyIn);
      }
      return;
    }
    if (o.get("metadata") instanceof ObjectNode meta) {
      for (Map.Entry<String, Set<String>> field : KNOWN.entrySet()) {
        if (meta.get(field.getKey()) instanceof ObjectNode map) {
          copy(map, field.getValue());
        }
      }
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> child = it.next();
      if (!List.of("metadata", "status").contains(child.getKey())) {
        copyIn(child.getValue());
      }
    }
  }

  private static void copy(ObjectNode map, Set<String> names) {
    for (String name : names) {
      JsonNode kueue = map.get(KUEUE + name);
      if (kueue != null && !map.has(BERTH + name)) {
        map.set(BERTH + name, kueue);
      }
    }
  }
}
