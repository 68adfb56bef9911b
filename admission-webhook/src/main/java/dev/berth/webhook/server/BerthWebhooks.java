package dev.berth.webhook.server;

import static dev.berth.webhook.server.WebhookPaths.*;

import dev.berth.api.v1beta1.AdmissionCheck;
import dev.berth.api.v1beta1.Budget;
import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Cohort;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.ProvisioningRequestConfig;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.Topology;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadPriorityClass;
import dev.berth.webhook.integration.Framework;
import dev.berth.webhook.mutation.ClaimFlavorSelectors;
import dev.berth.webhook.mutation.ClusterQueueDefaulter;
import dev.berth.webhook.mutation.KubeflowJobDefaulter;
import dev.berth.webhook.mutation.KueueLabelsDefaulter;
import dev.berth.webhook.mutation.LeaderWorkerSetDefaulter;
import dev.berth.webhook.mutation.LocalQueueDefaulter;
import dev.berth.webhook.mutation.ManagedJobDefaulter;
import dev.berth.webhook.mutation.PodAdmissionGate;
import dev.berth.webhook.mutation.PodTopologyGate;
import dev.berth.webhook.mutation.ServingDefaulter;
import dev.berth.webhook.mutation.WorkloadDefaulter;
import dev.berth.webhook.validation.BerthValidators;
import dev.berth.webhook.validation.CheckStateGrants;
import dev.berth.webhook.validation.CronJobQueueRule;
import dev.berth.webhook.validation.KubeflowJobValidator;
import dev.berth.webhook.validation.LeaderWorkerSetQueueRule;
import dev.berth.webhook.validation.ManagedJobPolicy;
import dev.berth.webhook.validation.PodGateGuard;
import dev.berth.webhook.validation.PodQueueRule;
import dev.berth.webhook.validation.QueueScope;
import dev.berth.webhook.validation.RequestGuard;
import dev.berth.webhook.validation.ServingQueueRule;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The route table: which handler answers which path. */
public final class BerthWebhooks {
  private static final Set<String> CREATE = Set.of("CREATE");
  private static final Set<String> CREATE_UPDATE = Set.of("CREATE", "UPDATE");

  private BerthWebhooks() {}

  /**
   * @param operatorIdentity the username the operator writes as; only it may start managed Jobs and
   *     write Workload admissions
   * @param cluster which LocalQueues exist and which namespaces Berth manages
   */
  public static Map<String, AdmissionHandler> routes(String operatorIdentity, QueueScope cluster) {
    return routes(operatorIdentity, cluster, CheckStateGrants.NONE);
  }

  /**
   * @param grants which admission checks' states a user other than the operator may write (the
   *     webhook asks the API server: {@link dev.berth.webhook.authz.SubjectAccessReviewGrants})
   */
  public static Map<String, AdmissionHandler> routes(
      String operatorIdentity, QueueScope cluster, CheckStateGrants grants) {
    RequestGuard guard = new RequestGuard(operatorIdentity, grants);
    ManagedJobPolicy jobPolicy = new ManagedJobPolicy(guard, cluster);
    Map<String, AdmissionHandler> routes = new LinkedHashMap<>();
    routes.put(
        VALIDATE_CLUSTER_QUEUE,
        new ValidatingHandler<>(
            ClusterQueue.class,
            BerthValidators::clusterQueue,
            BerthValidators::clusterQueueUpdate));
    routes.put(
        VALIDATE_COHORT,
        new ValidatingHandler<>(
            Cohort.class, BerthValidators::cohort, BerthValidators::cohortUpdate));
    routes.put(
        VALIDATE_RESOURCE_FLAVOR,
        new ValidatingHandler<>(
            ResourceFlavor.class,
            BerthValidators::resourceFlavor,
            BerthValidators::resourceFlavorUpdate));
    routes.put(
        VALIDATE_LOCAL_QUEUE,
        new ValidatingHandler<>(
            LocalQueue.class, BerthValidators::localQueue, BerthValidators::localQueueUpdate));
    routes.put(
        VALIDATE_WORKLOAD,
        new ValidatingHandler<>(
            Workload.class, BerthValidators::workload, BerthValidators::workloadUpdate));
    routes.put(VALIDATE_WORKLOAD_STATUS, new WorkloadStatusHandler(guard));
    routes.put(
        VALIDATE_PRIORITY_CLASS,
        new ValidatingHandler<>(
            WorkloadPriorityClass.class,
            BerthValidators::workloadPriorityClass,
            (old, wpc) -> BerthValidators.workloadPriorityClass(wpc)));
    routes.put(
        VALIDATE_TOPOLOGY,
        new ValidatingHandler<>(
            Topology.class, BerthValidators::topology, BerthValidators::topologyUpdate));
    routes.put(
        VALIDATE_ADMISSION_CHECK,
        new ValidatingHandler<>(
            AdmissionCheck.class,
            BerthValidators::admissionCheck,
            BerthValidators::admissionCheckUpdate));
    routes.put(
        VALIDATE_PROVISIONING_REQUEST_CONFIG,
        new ValidatingHandler<>(
            ProvisioningRequestConfig.class,
            BerthValidators::provisioningRequestConfig,
            (old, config) -> BerthValidators.provisioningRequestConfig(config)));
    routes.put(
        VALIDATE_BUDGET,
        new ValidatingHandler<>(
            Budget.class,
            BerthValidators::budget,
            (old, budget) -> BerthValidators.budget(budget)));
    PodGateHandler pods =
        new PodGateHandler(new PodGateGuard(guard), new PodQueueRule(guard, cluster));
    for (Framework framework : Framework.values()) {
      routes.put(framework.validatePath(), validator(framework, jobPolicy, pods, cluster));
    }
    // Also with the pod integration off: the queue rule and the topology gate's guard.
    routes.put(VALIDATE_POD, pods);
    routes.put(VALIDATE_CRONJOB, new TemplateQueueHandler(new CronJobQueueRule(cluster)));

    routes.put(
        MUTATE_CLUSTER_QUEUE, new MutatingHandler(new ClusterQueueDefaulter(), CREATE_UPDATE));
    routes.put(MUTATE_LOCAL_QUEUE, new MutatingHandler(new LocalQueueDefaulter(), CREATE_UPDATE));
    routes.put(MUTATE_WORKLOAD, new MutatingHandler(new WorkloadDefaulter(), CREATE_UPDATE));
    ManagedJobDefaulter jobs = new ManagedJobDefaulter(cluster);
    // One path for both pod gates: the chart registers each as its own webhook with its own
    // selectors (a topology-aware pod of a Job, a queued plain Pod), and each gate applies only to
    // its own pods.
    PodTopologyGate topologyGate = new PodTopologyGate();
    PodAdmissionGate admissionGate = new PodAdmissionGate(cluster);
    MutatingHandler podGates =
        new MutatingHandler(
            (pod, namespace) -> {
              topologyGate.apply(pod, namespace);
              admissionGate.apply(pod, namespace);
            },
            CREATE);
    for (Framework framework : Framework.values()) {
      routes.put(
          framework.mutatePath(),
          switch (framework) {
            case POD -> podGates;
            case DEPLOYMENT ->
                new MutatingHandler(ServingDefaulter.forDeployments(cluster), CREATE);
            case STATEFULSET ->
                new MutatingHandler(ServingDefaulter.forStatefulSets(cluster), CREATE);
            case LEADERWORKERSET ->
                new MutatingHandler(new LeaderWorkerSetDefaulter(cluster), CREATE);
            case BATCH_JOB, JOBSET, RAYJOB, RAYCLUSTER, TRAINJOB ->
                new MutatingHandler(jobs, CREATE);
            case PYTORCHJOB, MPIJOB ->
                new MutatingHandler(new KubeflowJobDefaulter(cluster, framework), CREATE);
          });
    }
    routes.put(MUTATE_POD, podGates);
    routes.put(MUTATE_KUEUE_LABELS, new MutatingHandler(new KueueLabelsDefaulter(), CREATE));
    ClaimFlavorSelectors claims = new ClaimFlavorSelectors(cluster);
    MutatingHandler narrowing = new MutatingHandler(claims, CREATE);
    routes.put(
        MUTATE_RESOURCE_CLAIM,
        call ->
            call.isCreate() && call.subResource() == null && call.object() != null
                ? claims
                    .refusal(call.object(), call.namespace())
                    .map(no -> AdmissionAnswer.of(List.of(no)))
                    .orElseGet(() -> narrowing.handle(call))
                : narrowing.handle(call));
    return routes;
  }

  /**
   * A workload kind's validator: its object rules (each kind's own) and the queue rule every kind
   * shares ({@link ManagedJobPolicy}). A switch over the registry, so that a kind added to it
   * without its rules does not compile.
   */
  private static AdmissionHandler validator(
      Framework framework, ManagedJobPolicy policy, PodGateHandler pods, QueueScope cluster) {
    return switch (framework) {
      case POD -> pods;
      case DEPLOYMENT -> new TemplateQueueHandler(ServingQueueRule.forDeployments(cluster));
      case STATEFULSET -> new TemplateQueueHandler(ServingQueueRule.forStatefulSets(cluster));
      case LEADERWORKERSET -> new TemplateQueueHandler(new LeaderWorkerSetQueueRule(cluster));
      case BATCH_JOB ->
          new ManagedJobHandler(
              framework.kind(),
              json -> TypedDecoder.validate(json, Job.class, BerthValidators::job),
              (old, json) ->
                  TypedDecoder.validate(old, json, Job.class, BerthValidators::jobUpdate),
              policy);
      case JOBSET ->
          new ManagedJobHandler(
              framework.kind(), BerthValidators::jobSet, BerthValidators::jobSetUpdate, policy);
      case PYTORCHJOB, MPIJOB -> {
        KubeflowJobValidator rules = new KubeflowJobValidator(framework);
        yield new ManagedJobHandler(
            framework.kind(), rules::validate, rules::validateUpdate, policy);
      }
      case RAYJOB ->
          new ManagedJobHandler(
              framework.kind(), BerthValidators::rayJob, BerthValidators::rayJobUpdate, policy);
      // Its shape is the Trainer's to check against its runtime; Berth's part is the queue rule.
      case TRAINJOB ->
          new ManagedJobHandler(
              framework.kind(), json -> List.of(), (old, json) -> List.of(), policy);
      case RAYCLUSTER ->
          new ManagedJobHandler(
              framework.kind(),
              BerthValidators::rayCluster,
              BerthValidators::rayClusterUpdate,
              policy);
    };
  }
}
