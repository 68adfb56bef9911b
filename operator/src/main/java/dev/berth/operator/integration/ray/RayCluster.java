package dev.berth.operator.integration.ray;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.berth.operator.integration.OpenObject;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;
import java.util.Map;

/**
 * The parts of a KubeRay ray.io/v1 RayCluster that admission reads and writes. Every field Berth
 * does not model is kept as it came, so an update never drops what the cluster's owner wrote.
 */
@Group("ray.io")
@Version("v1")
@Kind("RayCluster")
@Plural("rayclusters")
public class RayCluster extends CustomResource<RayCluster.Spec, RayCluster.Status>
    implements Namespaced {

  /** Keeps unknown fields of a JSON object, and writes no field Berth left unset. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public abstract static class Open extends OpenObject {}

  /** spec: suspend, autoscaling, the head group and the worker groups (a RayJob embeds one). */
  public static class Spec extends Open {
    public Boolean suspend;
    public Boolean enableInTreeAutoscaling;
    public HeadGroup headGroupSpec;
    public List<WorkerGroup> workerGroupSpecs;
  }

  /** The head: one pod. */
  public static class HeadGroup extends Open {
    public PodTemplateSpec template;
  }

  /** A group of identical workers: replicas, each of numOfHosts pods. */
  public static class WorkerGroup extends Open {
    public String groupName;
    public Integer replicas;
    public Integer minReplicas;
    public Integer maxReplicas;
    public Integer numOfHosts;
    public PodTemplateSpec template;
  }

  /** status: KubeRay's state ({@code ready}, {@code suspended}) and conditions. */
  public static class Status extends Open {
    public String state;
    public List<Map<String, Object>> conditions;
  }
}
