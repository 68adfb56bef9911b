package dev.berth.kubectl.convert;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The fields whose names or values differ between Kueue and Berth, per kind. Kueue v1beta1's forms
 * are mapped as Kueue's own conversion webhook maps them to v1beta2 (Kueue v0.17,
 * apis/kueue/v1beta1/*_conversion.go); v1beta2's differ from Berth's only in the group.
 */
final class KueueFields {
  private KueueFields() {}

  static void clusterQueue(ObjectNode spec, Findings f) {
    // v1beta1 spec.cohort is v1beta2's spec.cohortName.
    renamed(spec, "cohort", "cohortName", f);
    // v1beta1 spec.admissionChecks: each check on every flavor, a strategy rule with no flavors.
    if (spec.has("admissionChecks")) {
      JsonNode checks = spec.get("admissionChecks");
      if (spec.has("admissionChecksStrategy")) {
        spec.remove("admissionChecks");
        f.dropped(
            "spec.admissionChecks",
            "spec.admissionChecksStrategy is set too; Kueue refuses both, Berth keeps the strategy");
      } else if (checks.isArray() && !checks.isEmpty()) {
        ArrayNode rules = KueueConverter.array();
        checks.forEach(name -> rules.addObject().set("name", name));
        ObjectNode strategy = spec.objectNode();
        strategy.set("admissionChecks", rules);
        replaced(spec, "admissionChecks", "admissionChecksStrategy", strategy);
      } else {
        spec.remove("admissionChecks");
      }
    }
    checksOnFlavorsItHas(spec, f);
    if (spec.get("flavorFungibility") instanceof ObjectNode fungibility) {
      // Kueue v1beta1's Borrow and Preempt both mean: stop at this flavor; v1beta2 MayStopSearch.
      if ("Borrow".equals(fungibility.path("whenCanBorrow").asText())) {
        fungibility.put("whenCanBorrow", "MayStopSearch");
      }
      if ("Preempt".equals(fungibility.path("whenCanPreempt").asText())) {
        fungibility.put("whenCanPreempt", "MayStopSearch");
      }
    }
    JsonNode selector = spec.get("namespaceSelector");
    if (selector != null && selector.isObject() && selector.isEmpty()) {
      f.note(
          "spec.namespaceSelector",
          "{} selects every namespace: Berth then manages every Job there, and refuses one whose"
              + " queue does not exist (docs/webhooks.md#the-queue-rule); name the namespaces");
    }
  }

  /**
   * Kueue accepts a check rule's onFlavors naming a flavor the ClusterQueue does not have (its
   * minimal-cq example does); such a name matches no workload. Berth refuses it as a likely typo,
   * so it is left out here, and a rule left with no flavor of this ClusterQueue (one that applies
   * to nothing) with it: the ClusterQueue admits exactly as under Kueue.
   */
  private static void checksOnFlavorsItHas(ObjectNode spec, Findings f) {
    if (!(spec.path("admissionChecksStrategy").get("admissionChecks") instanceof ArrayNode rules)) {
      return;
    }
    java.util.Set<String> flavors = new java.util.HashSet<>();
    for (JsonNode group : spec.path("resourceGroups")) {
      for (JsonNode flavor : group.path("flavors")) {
        flavors.add(flavor.path("name").asText());
      }
    }
    String base = "spec.admissionChecksStrategy.admissionChecks";
    for (int i = rules.size() - 1; i >= 0; i--) {
      if (!(rules.get(i).get("onFlavors") instanceof ArrayNode on) || on.isEmpty()) {
        continue;
      }
      String check = rules.get(i).path("name").asText();
      java.util.List<String> missing = new java.util.ArrayList<>();
      for (int j = on.size() - 1; j >= 0; j--) {
        if (!flavors.contains(on.get(j).asText())) {
          missing.add(0, on.remove(j).asText());
        }
      }
      if (missing.isEmpty()) {
        continue;
      }
      String why = " not a flavor of this ClusterQueue: check " + check + " never applied there";
      if (on.isEmpty()) {
        rules.remove(i);
        f.dropped(base + "[" + i + "]", "its onFlavors " + missing + " are" + why);
      } else {
        f.dropped(base + "[" + i + "].onFlavors", missing + " are" + why);
      }
    }
    if (rules.isEmpty()) {
      spec.remove("admissionChecksStrategy");
    }
  }

  /** Kueue v1alpha1 Cohorts named their parent {@code parent}. */
  static void cohort(ObjectNode spec, Findings f) {
    renamed(spec, "parent", "parentName", f);
  }

  /** v1beta1 priorityClassName + priorityClassSource is v1beta2's priorityClassRef. */
  static void workload(ObjectNode spec, Findings f) {
    JsonNode name = spec.remove("priorityClassName");
    JsonNode source = spec.remove("priorityClassSource");
    if (name != null && !spec.has("priorityClassRef")) {
      String from = source == null ? "" : source.asText();
      ObjectNode ref = spec.putObject("priorityClassRef");
      switch (from) {
        case "kueue.x-k8s.io/workloadpriorityclass" -> {
          ref.put("group", "berth.dev");
          ref.put("kind", "WorkloadPriorityClass");
        }
        case "scheduling.k8s.io/priorityclass" -> {
          ref.put("group", "scheduling.k8s.io");
          ref.put("kind", "PriorityClass");
        }
        default -> {
          spec.remove("priorityClassRef");
          f.dropped(
              "spec.priorityClassName",
              "priorityClassSource "
                  + (from.isEmpty() ? "is not set" : from + " is not Kueue's")
                  + ", so it is not known which kind of priority class "
                  + name.asText()
                  + " is");
          return;
        }
      }
      ref.set("name", name);
    }
    if (spec.get("priorityClassRef") instanceof ObjectNode ref
        && KueueConverter.KUEUE_GROUP.equals(ref.path("group").asText())) {
      ref.put("group", "berth.dev");
    }
  }

  /** Renames {@code from} to {@code to} in place; v1beta2's field wins when both are set. */
  private static void renamed(ObjectNode o, String from, String to, Findings f) {
    if (o.has(from)) {
      if (o.has(to)) {
        o.remove(from);
        f.dropped("spec." + from, "spec." + to + " is set too, and is kept");
      } else {
        replaced(o, from, to, o.get(from));
      }
    }
  }

  /** {@code from} becomes {@code to} with {@code value}, where it stood: the order is kept. */
  private static void replaced(ObjectNode o, String from, String to, JsonNode value) {
    java.util.Map<String, JsonNode> fields = new java.util.LinkedHashMap<>();
    o.properties()
        .iterator()
        .forEachRemaining(
            e -> {
              if (e.getKey().equals(from)) {
                fields.put(to, value);
              } else {
                fields.put(e.getKey(), e.getValue());
              }
            });
    o.removeAll();
    fields.forEach(o::set);
  }

  /** False when the check is run by a controller Berth does not have (MultiKueue). */
  static boolean admissionCheck(ObjectNode spec, Findings f) {
    String controller = spec.path("controllerName").asText();
    if (controller.equals(KueueConverter.KUEUE_PROVISIONING)) {
      spec.put("controllerName", KueueConverter.BERTH_PROVISIONING);
    } else if (controller.equals("kueue.x-k8s.io/multikueue")) {
      f.notSupported(
          "a MultiKueue check (controllerName kueue.x-k8s.io/multikueue): Berth has no MultiKueue");
      return false;
    } else if (!controller.isEmpty()) {
      f.note(
          "spec.controllerName",
          controller
              + " is not a controller Berth runs ("
              + KueueConverter.BERTH_PROVISIONING
              + " is): the check stays pending until a controller of that name sets its state");
    }
    if (spec.get("parameters") instanceof ObjectNode parameters
        && KueueConverter.KUEUE_GROUP.equals(parameters.path("apiGroup").asText())) {
      parameters.put("apiGroup", "berth.dev");
    }
    return true;
  }
}
