package dev.berth.operator.integration.ray;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.Map;

/**
 * The parts of a KubeRay ray.io/v1 RayJob that admission reads and writes: its suspension, the
 * RayCluster it creates, its submitter Job's pod template and KubeRay's status. Every other field
 * is kept as it came.
 */
@Group("ray.io")
@Version("v1")
@Kind("RayJob")
@Plural("rayjobs")
public class RayJob extends CustomResource<RayJob.Spec, RayJob.Status> implements Namespaced {

  /** spec: what Berth reads of a RayJob. */
  public static class Spec extends RayCluster.Open {
    public Boolean suspend;

    /** K8sJobMode (the CRD's default), HTTPMode, SidecarMode or InteractiveMode. */
    public String submissionMode;

    public RayCluster.Spec rayClusterSpec;
    public PodTemplateSpec submitterPodTemplate;
    public Map<String, String> clusterSelector;
  }

  /** status: KubeRay's deployment status, the Ray job's status and the cluster's. */
  public static class Status extends RayCluster.Open {
    public String jobDeploymentStatus;
    public String jobStatus;
    public String message;
    public String reason;
    public String rayClusterName;
    public Map<String, Object> rayClusterStatus;
  }
}
