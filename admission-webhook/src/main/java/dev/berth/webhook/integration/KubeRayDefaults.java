package dev.berth.webhook.integration;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;

/**
 * The containers KubeRay v1.5 adds to the pods it builds, with the resources it gives them: they
 * are not in the RayCluster's templates, yet their pods ask for them, so the Workload (the
 * operator's pod sets) and the pod queue rule (the webhook's comparison of a pod with its template)
 * both count them. Pure data, read by both modules.
 */
public final class KubeRayDefaults {
  /** The submitter's container: the submitter Job's (K8sJobMode) or the head's sidecar. */
  public static final String SUBMITTER_CONTAINER = "ray-job-submitter";

  /** The init container KubeRay puts in each worker pod, waiting for the head's GCS. */
  public static final String WAIT_GCS_READY = "wait-gcs-ready";

  private KubeRayDefaults() {}

  /** KubeRay's default submitter container (its GetDefaultSubmitterContainer), without image. */
  public static Container submitter() {
    return new ContainerBuilder()
        .withName(SUBMITTER_CONTAINER)
        .withNewResources()
        .withRequests(Map.of("cpu", new Quantity("500m"), "memory", new Quantity("200Mi")))
        .withLimits(Map.of("cpu", new Quantity("1"), "memory", new Quantity("1Gi")))
        .endResources()
        .build();
  }

  /** The init container of every worker pod (KubeRay's ENABLE_INIT_CONTAINER_INJECTION default). */
  public static Container waitGcsReady() {
    Map<String, Quantity> fixed =
        Map.of("cpu", new Quantity("200m"), "memory", new Quantity("256Mi"));
    return new ContainerBuilder()
        .withName(WAIT_GCS_READY)
        .withNewResources()
        .withRequests(fixed)
        .withLimits(fixed)
        .endResources()
        .build();
  }
}
