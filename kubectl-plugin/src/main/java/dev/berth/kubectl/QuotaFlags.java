package dev.berth.kubectl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The quota flags of {@code create clusterqueue}, in kueuectl's form {@code
 * FLAVOR:RESOURCE=QUANTITY[;RESOURCE=QUANTITY][,FLAVOR:...]}, turned into {@code
 * spec.resourceGroups}: flavors that cover the same resources form one group, in the order typed.
 * Each error names the flag and the part of its value at fault.
 */
final class QuotaFlags {
  private QuotaFlags() {}

  // A resource name: an optional DNS-subdomain prefix and a name part, as Kubernetes spells them.
  private static final Pattern RESOURCE =
      Pattern.compile(
          "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
              + "[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
  // A Kubernetes quantity: a non-negative decimal, then a binary or decimal suffix or an exponent.
  private static final Pattern QUANTITY =
      Pattern.compile(
          "\\+?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+|Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?");

  /** flavor → resource → quantity, in the order typed. */
  static Map<String, Map<String, String>> parse(String flag, String value)
      throws Options.UsageError {
    Map<String, Map<String, String>> out = new LinkedHashMap<>();
    for (String part : value.split(",", -1)) {
      String p = part.strip();
      int colon = p.indexOf(':');
      if (colon <= 0) {
        throw new Options.UsageError(
            flag
                + ": \""
                + p
                + "\" is not FLAVOR:RESOURCE=QUANTITY[;RESOURCE=QUANTITY] (e.g."
                + " default:cpu=9;memory=36Gi)");
      }
      String flavor = p.substring(0, colon);
      if (!CreateCommand.Names.isSubdomain(flavor)) {
        throw new Options.UsageError(
            flag + ": flavor \"" + flavor + "\" is not a valid ResourceFlavor name");
      }
      if (out.containsKey(flavor)) {
        throw new Options.UsageError(flag + ": flavor " + flavor + " is given twice");
      }
      Map<String, String> resources = new LinkedHashMap<>();
      for (String r : p.substring(colon + 1).split(";", -1)) {
        int eq = r.indexOf('=');
        String name = eq < 0 ? r.strip() : r.substring(0, eq).strip();
        String quantity = eq < 0 ? "" : r.substring(eq + 1).strip();
        if (eq <= 0 || quantity.isEmpty()) {
          throw new Options.UsageError(
              flag + ": \"" + r.strip() + "\" of flavor " + flavor + " is not RESOURCE=QUANTITY");
        }
        if (!RESOURCE.matcher(name).matches()) {
          throw new Options.UsageError(
              flag + ": " + flavor + ": \"" + name + "\" is not a resource name");
        }
        if (!QUANTITY.matcher(quantity).matches()) {
          throw new Options.UsageError(
              flag
                  + ": "
                  + flavor
                  + ":"
                  + name
                  + ": \""
                  + quantity
                  + "\" is not a non-negative quantity such as 9, 500m or 36Gi");
        }
        if (resources.put(name, quantity) != null) {
          throw new Options.UsageError(flag + ": " + flavor + ":" + name + " is given twice");
        }
      }
      out.put(flavor, resources);
    }
    return out;
  }

  /**
   * {@code spec.resourceGroups} from the nominal quotas and the limits (each limit must name a
   * flavor and resource with a nominal quota, which is what the API would refuse otherwise).
   */
  static ArrayNode resourceGroups(
      Map<String, Map<String, String>> nominal,
      Map<String, Map<String, String>> borrowing,
      Map<String, Map<String, String>> lending)
      throws Options.UsageError {
    limitsWithinNominal("--borrowing-limit", borrowing, nominal);
    limitsWithinNominal("--lending-limit", lending, nominal);
    // Flavors covering the same resources share a group; a resource in two groups is refused.
    List<List<String>> groups = new ArrayList<>();
    Map<String, String> groupOf = new LinkedHashMap<>();
    for (var flavor : nominal.entrySet()) {
      List<String> covered = new ArrayList<>(flavor.getValue().keySet());
      List<String> group =
          groups.stream()
              .filter(g -> sameSet(nominal.get(g.get(0)).keySet(), covered))
              .findFirst()
              .orElse(null);
      if (group == null) {
        for (String r : covered) {
          if (groupOf.containsKey(r)) {
            throw new Options.UsageError(
                "--nominal-quota: flavors "
                    + groupOf.get(r)
                    + " and "
                    + flavor.getKey()
                    + " both cover "
                    + r
                    + " but not the same resources; flavors that share a resource must list the"
                    + " same resources (one resource group)");
          }
        }
        group = new ArrayList<>();
        groups.add(group);
      }
      group.add(flavor.getKey());
      for (String r : covered) {
        groupOf.putIfAbsent(r, flavor.getKey());
      }
    }
    ArrayNode out = Kubectl.JSON.createArrayNode();
    for (List<String> group : groups) {
      ObjectNode g = out.addObject();
      List<String> covered = new ArrayList<>(nominal.get(group.get(0)).keySet());
      ArrayNode cr = g.putArray("coveredResources");
      covered.forEach(cr::add);
      ArrayNode flavors = g.putArray("flavors");
      for (String f : group) {
        ObjectNode fo = flavors.addObject();
        fo.put("name", f);
        ArrayNode rs = fo.putArray("resources");
        for (String r : covered) {
          ObjectNode ro = rs.addObject();
          ro.put("name", r);
          ro.put("nominalQuota", nominal.get(f).get(r));
          putIfPresent(ro, "borrowingLimit", borrowing.getOrDefault(f, Map.of()).get(r));
          putIfPresent(ro, "lendingLimit", lending.getOrDefault(f, Map.of()).get(r));
        }
      }
    }
    return out;
  }

  private static void limitsWithinNominal(
      String flag,
      Map<String, Map<String, String>> limits,
      Map<String, Map<String, String>> nominal)
      throws Options.UsageError {
    for (var f : limits.entrySet()) {
      for (String r : f.getValue().keySet()) {
        if (!nominal.getOrDefault(f.getKey(), Map.of()).containsKey(r)) {
          throw new Options.UsageError(
              flag + ": " + f.getKey() + ":" + r + " has no --nominal-quota");
        }
      }
    }
  }

  private static boolean sameSet(java.util.Collection<String> a, List<String> b) {
    return a.size() == b.size() && a.containsAll(b);
  }

  private static void putIfPresent(ObjectNode o, String field, String value) {
    if (value != null) {
      o.put(field, value);
    }
  }

  /** {@code KEY=VALUE[,KEY=VALUE]} of {@code --namespace-selector} as matchLabels. */
  static JsonNode matchLabels(String value) throws Options.UsageError {
    ObjectNode labels = Kubectl.JSON.createObjectNode();
    for (String pair : value.split(",", -1)) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? "" : pair.substring(0, eq).strip();
      String v = eq < 0 ? "" : pair.substring(eq + 1).strip();
      if (key.isEmpty()) {
        throw new Options.UsageError(
            "--namespace-selector: \"" + pair.strip() + "\" is not KEY=VALUE");
      }
      if (labels.has(key) && !Objects.equals(labels.get(key).asText(), v)) {
        throw new Options.UsageError("--namespace-selector: " + key + " is given twice");
      }
      labels.put(key, v);
    }
    return labels;
  }
}
