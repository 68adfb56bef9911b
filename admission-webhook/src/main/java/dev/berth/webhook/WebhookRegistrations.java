package dev.berth.webhook;

import static dev.berth.webhook.server.WebhookPaths.*;

import dev.berth.api.v1beta1.Berth;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MatchConditionBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperations;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperationsBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The webhook configurations, with their failure policies, timeouts and selectors: the single place
 * these choices are made (docs/webhooks.md explains them). The chart renders the same objects; the
 * end-to-end tests register them against a real API server.
 */
public final class WebhookRegistrations {
  public static final String VALIDATING_NAME = "berth-validating";
  public static final String MUTATING_NAME = "berth-mutating";

  /** Berth objects are admin objects: rare writes, so allow the API server's full budget. */
  static final int BERTH_TIMEOUT_SECONDS = 10;

  /**
   * Jobs are on every team's submit path (and JobSet's controller's), their pods on the Job
   * controller's: fail fast.
   */
  static final int JOB_TIMEOUT_SECONDS = 5;

  /** CEL: the pod as stored still waits behind Berth's scheduling gate. */
  public static final String GATED_BY_BERTH =
      "has(oldObject.spec.schedulingGates) &&"
          + " oldObject.spec.schedulingGates.exists(g, g.name == '"
          + Berth.TOPOLOGY_SCHEDULING_GATE
          + "')";

  private static final String BERTH_GROUP = Berth.GROUP;
  private static final String JOBSET_GROUP = "jobset.x-k8s.io";

  private final Function<String, WebhookClientConfig> clientConfig;
  private final List<String> excludedNamespaces;

  /**
   * @param clientConfig where the API server sends a path: a Service in the chart, a URL in tests
   * @param excludedNamespaces namespaces whose Jobs and pods the webhook never sees (kube-system,
   *     and the operator's own, so the webhook can never block its own recovery)
   */
  public WebhookRegistrations(
      Function<String, WebhookClientConfig> clientConfig, List<String> excludedNamespaces) {
    this.clientConfig = clientConfig;
    this.excludedNamespaces = List.copyOf(excludedNamespaces);
  }

  public ValidatingWebhookConfiguration validating() {
    List<ValidatingWebhook> hooks = new ArrayList<>();
    hooks.add(validatingBerth("vclusterqueue", VALIDATE_CLUSTER_QUEUE, "clusterqueues"));
    hooks.add(validatingBerth("vcohort", VALIDATE_COHORT, "cohorts"));
    hooks.add(validatingBerth("vresourceflavor", VALIDATE_RESOURCE_FLAVOR, "resourceflavors"));
    hooks.add(validatingBerth("vlocalqueue", VALIDATE_LOCAL_QUEUE, "localqueues"));
    hooks.add(validatingBerth("vworkload", VALIDATE_WORKLOAD, "workloads"));
    hooks.add(
        validating(
            "vworkload-status",
            VALIDATE_WORKLOAD_STATUS,
            rule(BERTH_GROUP, "v1beta1", "workloads/status", "UPDATE"),
            "Fail",
            BERTH_TIMEOUT_SECONDS,
            null,
            null));
    hooks.add(
        validatingBerth(
            "vworkloadpriorityclass", VALIDATE_PRIORITY_CLASS, "workloadpriorityclasses"));
    hooks.add(validatingBerth("vtopology", VALIDATE_TOPOLOGY, "topologies"));
    hooks.add(validatingBerth("vadmissioncheck", VALIDATE_ADMISSION_CHECK, "admissionchecks"));
    hooks.add(
        validatingBerth(
            "vprovisioningrequestconfig",
            VALIDATE_PROVISIONING_REQUEST_CONFIG,
            "provisioningrequestconfigs"));
    // Every Job and JobSet outside the excluded namespaces, labelled or not: in a namespace a
    // ClusterQueue selects (or with a default LocalQueue) all of them are Berth's, and which
    // namespaces those are changes with the ClusterQueues, so no selector can say it. Fail: a
    // missed call could start one without quota.
    hooks.add(
        validating(
            "vjob",
            VALIDATE_JOB,
            rule("batch", "v1", "jobs", "CREATE", "UPDATE"),
            "Fail",
            JOB_TIMEOUT_SECONDS,
            userNamespaces(),
            null));
    hooks.add(
        validating(
            "vjobset",
            VALIDATE_JOBSET,
            rule(JOBSET_GROUP, "v1alpha2", "jobsets", "CREATE", "UPDATE"),
            "Fail",
            JOB_TIMEOUT_SECONDS,
            userNamespaces(),
            null));
    // Updates of pods behind Berth's topology gate: only the operator releases them. The label
    // keeps every other pod away; the match condition lets updates of released pods (the Job
    // controller's finalizer removal, for one) through without a call, so only gated pods fail
    // closed.
    ValidatingWebhook pods =
        validating(
            "vpod",
            VALIDATE_POD,
            rule("", "v1", "pods", "UPDATE"),
            "Fail",
            JOB_TIMEOUT_SECONDS,
            userNamespaces(),
            labelled(Berth.PODSET_LABEL));
    pods.setMatchConditions(
        List.of(
            new MatchConditionBuilder()
                .withName("gated-by-berth")
                .withExpression(GATED_BY_BERTH)
                .build()));
    hooks.add(pods);
    return new ValidatingWebhookConfigurationBuilder()
        .withNewMetadata()
        .withName(VALIDATING_NAME)
        .endMetadata()
        .withWebhooks(hooks)
        .build();
  }

  public MutatingWebhookConfiguration mutating() {
    List<MutatingWebhook> hooks = new ArrayList<>();
    hooks.add(mutatingBerth("mclusterqueue", MUTATE_CLUSTER_QUEUE, "clusterqueues"));
    hooks.add(mutatingBerth("mlocalqueue", MUTATE_LOCAL_QUEUE, "localqueues"));
    hooks.add(mutatingBerth("mworkload", MUTATE_WORKLOAD, "workloads"));
    // Labelled Jobs must be suspended or they run around the queue: Fail.
    hooks.add(
        mutating(
            "mjob",
            MUTATE_JOB,
            rule("batch", "v1", "jobs", "CREATE"),
            "Fail",
            userNamespaces(),
            managed()));
    // Unlabelled Jobs only might get the default queue: if the webhook is down they stay
    // unmanaged, as if there were no default queue. Never block all Job creation for that.
    hooks.add(
        mutating(
            "mjob-default-queue",
            MUTATE_JOB,
            rule("batch", "v1", "jobs", "CREATE"),
            "Ignore",
            userNamespaces(),
            unmanaged()));
    hooks.add(
        mutating(
            "mjobset",
            MUTATE_JOBSET,
            rule(JOBSET_GROUP, "v1alpha2", "jobsets", "CREATE"),
            "Fail",
            userNamespaces(),
            managed()));
    hooks.add(
        mutating(
            "mjobset-default-queue",
            MUTATE_JOBSET,
            rule(JOBSET_GROUP, "v1alpha2", "jobsets", "CREATE"),
            "Ignore",
            userNamespaces(),
            unmanaged()));
    // Pods of an admitted topology-aware podSet: an ungated one could be scheduled outside the
    // domain its Workload was admitted to, so Fail. The label keeps every other pod away.
    hooks.add(
        mutating(
            "mpod",
            MUTATE_POD,
            rule("", "v1", "pods", "CREATE"),
            "Fail",
            userNamespaces(),
            labelled(Berth.PODSET_LABEL)));
    return new MutatingWebhookConfigurationBuilder()
        .withNewMetadata()
        .withName(MUTATING_NAME)
        .endMetadata()
        .withWebhooks(hooks)
        .build();
  }

  private ValidatingWebhook validatingBerth(String name, String path, String resource) {
    return validating(
        name,
        path,
        rule(BERTH_GROUP, "v1beta1", resource, "CREATE", "UPDATE"),
        "Fail",
        BERTH_TIMEOUT_SECONDS,
        null,
        null);
  }

  private ValidatingWebhook validating(
      String name,
      String path,
      RuleWithOperations rule,
      String failurePolicy,
      int timeout,
      LabelSelector namespaces,
      LabelSelector objects) {
    return new ValidatingWebhookBuilder()
        .withName(name + ".berth.dev")
        .withClientConfig(clientConfig.apply(path))
        .withRules(rule)
        .withFailurePolicy(failurePolicy)
        .withMatchPolicy("Equivalent")
        .withSideEffects("None")
        .withTimeoutSeconds(timeout)
        .withAdmissionReviewVersions("v1")
        .withNamespaceSelector(namespaces)
        .withObjectSelector(objects)
        .build();
  }

  private MutatingWebhook mutatingBerth(String name, String path, String resource) {
    return mutating(
        name, path, rule(BERTH_GROUP, "v1beta1", resource, "CREATE", "UPDATE"), "Fail", null, null);
  }

  private MutatingWebhook mutating(
      String name,
      String path,
      RuleWithOperations rule,
      String failurePolicy,
      LabelSelector namespaces,
      LabelSelector objects) {
    boolean job = !rule.getApiGroups().contains(BERTH_GROUP);
    return new MutatingWebhookBuilder()
        .withName(name + ".berth.dev")
        .withClientConfig(clientConfig.apply(path))
        .withRules(rule)
        .withFailurePolicy(failurePolicy)
        .withMatchPolicy("Equivalent")
        .withSideEffects("None")
        .withTimeoutSeconds(job ? JOB_TIMEOUT_SECONDS : BERTH_TIMEOUT_SECONDS)
        .withAdmissionReviewVersions("v1")
        // Defaults are idempotent and set-if-absent, so a second call after later webhooks
        // changed the object would add nothing.
        .withReinvocationPolicy("Never")
        .withNamespaceSelector(namespaces)
        .withObjectSelector(objects)
        .build();
  }

  private static RuleWithOperations rule(
      String group, String version, String resource, String... operations) {
    return new RuleWithOperationsBuilder()
        .withApiGroups(group)
        .withApiVersions(version)
        .withResources(resource)
        .withOperations(operations)
        .withScope("*")
        .build();
  }

  private LabelSelector userNamespaces() {
    return new LabelSelectorBuilder()
        .addNewMatchExpression()
        .withKey("kubernetes.io/metadata.name")
        .withOperator("NotIn")
        .withValues(excludedNamespaces)
        .endMatchExpression()
        .build();
  }

  private static LabelSelector managed() {
    return labelled(Berth.QUEUE_NAME_LABEL);
  }

  private static LabelSelector labelled(String key) {
    return new LabelSelectorBuilder()
        .addNewMatchExpression()
        .withKey(key)
        .withOperator("Exists")
        .endMatchExpression()
        .build();
  }

  private static LabelSelector unmanaged() {
    return new LabelSelectorBuilder()
        .addNewMatchExpression()
        .withKey(Berth.QUEUE_NAME_LABEL)
        .withOperator("DoesNotExist")
        .endMatchExpression()
        .build();
  }
}
