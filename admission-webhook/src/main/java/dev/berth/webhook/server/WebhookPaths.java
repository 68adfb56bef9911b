package dev.berth.webhook.server;

import dev.berth.webhook.integration.Framework;

/**
 * The URL paths the webhook configurations point at, one per kind and webhook type; those of the
 * workload kinds are the registry's ({@link Framework}).
 */
public final class WebhookPaths {
  private static final String BERTH = "berth-dev-v1beta1-";

  public static final String VALIDATE_CLUSTER_QUEUE = "/validate-" + BERTH + "clusterqueue";
  public static final String VALIDATE_COHORT = "/validate-" + BERTH + "cohort";
  public static final String VALIDATE_RESOURCE_FLAVOR = "/validate-" + BERTH + "resourceflavor";
  public static final String VALIDATE_LOCAL_QUEUE = "/validate-" + BERTH + "localqueue";
  public static final String VALIDATE_WORKLOAD = "/validate-" + BERTH + "workload";
  public static final String VALIDATE_WORKLOAD_STATUS = "/validate-" + BERTH + "workload-status";
  public static final String VALIDATE_PRIORITY_CLASS =
      "/validate-" + BERTH + "workloadpriorityclass";
  public static final String VALIDATE_TOPOLOGY = "/validate-" + BERTH + "topology";
  public static final String VALIDATE_ADMISSION_CHECK = "/validate-" + BERTH + "admissioncheck";
  public static final String VALIDATE_PROVISIONING_REQUEST_CONFIG =
      "/validate-" + BERTH + "provisioningrequestconfig";
  public static final String VALIDATE_BUDGET = "/validate-" + BERTH + "budget";
  public static final String VALIDATE_JOB = Framework.BATCH_JOB.validatePath();
  public static final String VALIDATE_JOBSET = Framework.JOBSET.validatePath();

  /** The core group is the empty string, hence the double dash. */
  public static final String VALIDATE_POD = "/validate--v1-pod";

  /**
   * CronJobs are not a workload kind of their own (their Jobs are), so not in the registry; the
   * chart registers this with batch/job.
   */
  public static final String VALIDATE_CRONJOB = "/validate-batch-v1-cronjob";

  public static final String MUTATE_CLUSTER_QUEUE = "/mutate-" + BERTH + "clusterqueue";
  public static final String MUTATE_LOCAL_QUEUE = "/mutate-" + BERTH + "localqueue";
  public static final String MUTATE_WORKLOAD = "/mutate-" + BERTH + "workload";
  public static final String MUTATE_JOB = Framework.BATCH_JOB.mutatePath();
  public static final String MUTATE_JOBSET = Framework.JOBSET.mutatePath();

  /** The core group is the empty string, hence the double dash. */
  public static final String MUTATE_POD = "/mutate--v1-pod";

  /** Claims made for pods: the device selectors of their Workload's flavors (docs/dra.md). */
  public static final String MUTATE_RESOURCE_CLAIM = "/mutate-resource-k8s-io-v1-resourceclaim";

  /** compatibility.kueueLabels: Kueue's labels copied to Berth's, before any other webhook. */
  public static final String MUTATE_KUEUE_LABELS = "/mutate-kueue-labels";

  /** Plain GET for readiness probes. */
  public static final String HEALTH = "/healthz";

  private WebhookPaths() {}
}
