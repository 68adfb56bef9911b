package dev.berth.kubectl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code kubectl berth create clusterqueue|localqueue NAME}: the object built from the flags
 * (checked here first, each error naming its flag), then created through {@code kubectl create}, so
 * the API server's RBAC and Berth's webhooks decide as for any other create.
 */
final class CreateCommand {
  private CreateCommand() {}

  private static final Set<String> STRATEGIES = Set.of("StrictFIFO", "BestEffortFIFO");
  private static final Set<String> RECLAIM = Set.of("Never", "LowerPriority", "Any");
  private static final Set<String> WITHIN =
      Set.of("Never", "LowerPriority", "LowerOrNewerEqualPriority");
  private static final Set<String> DRY_RUN = Set.of("none", "client", "server");

  private static final Set<String> CQ_FLAGS =
      Set.of(
          "--cohort",
          "--queuing-strategy",
          "--namespace-selector",
          "--reclaim-within-cohort",
          "--preemption-within-cluster-queue",
          "--nominal-quota",
          "--borrowing-limit",
          "--lending-limit",
          "--dry-run");
  private static final Set<String> LQ_FLAGS = Set.of("--ignore-unknown-cq", "--dry-run");

  /** What {@code create} prints: the object (-o), or kubectl's line "KIND/NAME created". */
  static String run(Options o, Kubectl kubectl) throws Options.UsageError {
    String kind = Kinds.canonical(o.arg(0));
    if (kind == null || kind.equals("workload")) {
      throw new Options.UsageError(
          o.arg(0) == null
              ? "create needs clusterqueue or localqueue"
              : "create: " + o.arg(0) + " is not clusterqueue or localqueue");
    }
    String dryRun = o.flags().getOrDefault("--dry-run", "none");
    if (!DRY_RUN.contains(dryRun)) {
      throw new Options.UsageError("--dry-run: " + dryRun + " is not none, client or server");
    }
    JsonNode object = kind.equals("clusterqueue") ? clusterQueue(o) : localQueue(o);
    if (kind.equals("localqueue") && !o.has("--ignore-unknown-cq") && !dryRun.equals("client")) {
      requireClusterQueue(kubectl, o.clusterQueue());
    }
    JsonNode created =
        dryRun.equals("client") ? object : kubectl.create(object, dryRun.equals("server"));
    if (o.output() != null) {
      return Printer.print(created, o.output());
    }
    return Kinds.resource(kind)
        + "/"
        + created.path("metadata").path("name").asText()
        + " created"
        + (dryRun.equals("none") ? "" : " (" + dryRun + " dry run)")
        + "\n";
  }

  static JsonNode clusterQueue(Options o) throws Options.UsageError {
    String name = name(o, "clusterqueue", CQ_FLAGS);
    ObjectNode cq = header("ClusterQueue", name, null);
    ObjectNode spec = cq.putObject("spec");
    if (o.has("--cohort")) {
      String cohort = o.flag("--cohort");
      if (!Names.isSubdomain(cohort)) {
        throw new Options.UsageError("--cohort: \"" + cohort + "\" is not a valid cohort name");
      }
      spec.put("cohortName", cohort);
    }
    if (o.has("--namespace-selector")) {
      spec.putObject("namespaceSelector")
          .set("matchLabels", QuotaFlags.matchLabels(o.flag("--namespace-selector")));
    }
    oneOf(o, "--queuing-strategy", STRATEGIES).ifPresent(v -> spec.put("queueingStrategy", v));
    var reclaim = oneOf(o, "--reclaim-within-cohort", RECLAIM);
    var within = oneOf(o, "--preemption-within-cluster-queue", WITHIN);
    if (reclaim.isPresent() || within.isPresent()) {
      ObjectNode preemption = spec.putObject("preemption");
      reclaim.ifPresent(v -> preemption.put("reclaimWithinCohort", v));
      within.ifPresent(v -> preemption.put("withinClusterQueue", v));
    }
    Map<String, Map<String, String>> nominal = quota(o, "--nominal-quota");
    Map<String, Map<String, String>> borrowing = quota(o, "--borrowing-limit");
    Map<String, Map<String, String>> lending = quota(o, "--lending-limit");
    if (!nominal.isEmpty() || !borrowing.isEmpty() || !lending.isEmpty()) {
      spec.set("resourceGroups", QuotaFlags.resourceGroups(nominal, borrowing, lending));
    }
    return cq;
  }

  static JsonNode localQueue(Options o) throws Options.UsageError {
    String name = name(o, "localqueue", LQ_FLAGS);
    if (o.clusterQueue() == null) {
      throw new Options.UsageError(
          "--clusterqueue (-c) is required: the ClusterQueue it submits to");
    }
    if (!Names.isSubdomain(o.clusterQueue())) {
      throw new Options.UsageError(
          "--clusterqueue: \"" + o.clusterQueue() + "\" is not a valid ClusterQueue name");
    }
    ObjectNode lq = header("LocalQueue", name, o.namespace());
    lq.putObject("spec").put("clusterQueue", o.clusterQueue());
    return lq;
  }

  /** The NAME argument, checked, and no flag of the other kind (a typo would go unnoticed). */
  private static String name(Options o, String kind, Set<String> allowed)
      throws Options.UsageError {
    for (String flag : o.flags().keySet()) {
      if (!allowed.contains(flag)) {
        throw new Options.UsageError(flag + " is not a flag of create " + kind);
      }
    }
    String name = o.arg(1);
    if (name == null) {
      throw new Options.UsageError("create " + kind + " needs a NAME");
    }
    if (o.args().size() > 2) {
      throw new Options.UsageError(
          "create " + kind + " takes one NAME, not " + o.args().subList(1, o.args().size()));
    }
    if (!Names.isSubdomain(name)) {
      throw new Options.UsageError(
          "NAME: \""
              + name
              + "\" is not a valid name (lower-case letters, digits, '-' and '.', at most 253)");
    }
    return name;
  }

  private static ObjectNode header(String kind, String name, String namespace) {
    ObjectNode o = Kubectl.JSON.createObjectNode();
    o.put("apiVersion", "berth.dev/v1beta1");
    o.put("kind", kind);
    ObjectNode meta = o.putObject("metadata");
    meta.put("name", name);
    if (namespace != null) {
      meta.put("namespace", namespace);
    }
    return o;
  }

  private static java.util.Optional<String> oneOf(Options o, String flag, Set<String> values)
      throws Options.UsageError {
    String v = o.flag(flag);
    if (v == null) {
      return java.util.Optional.empty();
    }
    if (!values.contains(v)) {
      throw new Options.UsageError(
          flag
              + ": \""
              + v
              + "\" is not one of "
              + String.join(", ", List.copyOf(new java.util.TreeSet<>(values))));
    }
    return java.util.Optional.of(v);
  }

  private static Map<String, Map<String, String>> quota(Options o, String flag)
      throws Options.UsageError {
    return o.has(flag) ? QuotaFlags.parse(flag, o.flag(flag)) : Map.of();
  }

  /**
   * As kueuectl: a LocalQueue of a ClusterQueue that does not exist is refused unless -i. A user
   * who may not read ClusterQueues (a team member) is not stopped here: the create itself tells.
   */
  private static void requireClusterQueue(Kubectl kubectl, String name) {
    try {
      Kubectl.await(kubectl.get(Kinds.resource("clusterqueue"), name));
    } catch (Kubectl.Failure e) {
      if (e.getMessage().contains("(NotFound)")) {
        throw new Kubectl.Failure(
            "clusterqueue "
                + name
                + " not found; create it first, or pass -i (--ignore-unknown-cq) to create the"
                + " LocalQueue anyway");
      }
      if (!e.getMessage().contains("(Forbidden)")) {
        throw e;
      }
    }
  }

  /** Kubernetes object names. */
  static final class Names {
    private static final java.util.regex.Pattern SUBDOMAIN =
        java.util.regex.Pattern.compile(
            "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    private Names() {}

    static boolean isSubdomain(String s) {
      return s != null && s.length() <= 253 && SUBDOMAIN.matcher(s).matches();
    }
  }
}
