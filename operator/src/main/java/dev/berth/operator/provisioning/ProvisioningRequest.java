package dev.berth.operator.provisioning;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.berth.operator.integration.OpenObject;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;
import java.util.Map;

/**
 * The parts of the cluster autoscaler's autoscaling.x-k8s.io/v1 ProvisioningRequest that the
 * provisioning check writes (spec: class, parameters, podSets by PodTemplate) and reads (status
 * conditions). Fields Berth does not model are kept as they came.
 */
@Group(ProvisioningRequest.GROUP)
@Version("v1")
@Kind("ProvisioningRequest")
@Plural("provisioningrequests")
public class ProvisioningRequest
    extends CustomResource<ProvisioningRequest.Spec, ProvisioningRequest.Status>
    implements Namespaced {
  public static final String GROUP = "autoscaling.x-k8s.io";
  public static final String CRD = "provisioningrequests." + GROUP;

  /** Pod annotation: the ProvisioningRequest whose booked capacity the pod uses. */
  public static final String CONSUME_ANNOTATION = GROUP + "/consume-provisioning-request";

  /** Pod annotation: that request's provisioning class. */
  public static final String CLASS_ANNOTATION = GROUP + "/provisioning-class-name";

  /** Keeps unknown fields of a JSON object. */
  public abstract static class Open extends OpenObject {}

  /** What capacity is asked for: pods of these templates, this many of each. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Spec extends Open {
    public String provisioningClassName;
    public Map<String, String> parameters;
    public List<PodSet> podSets;
  }

  /** count pods like the PodTemplate named. */
  public static class PodSet extends Open {
    public Integer count;
    public PodTemplateRef podTemplateRef;

    public PodSet() {}

    public PodSet(int count, String podTemplate) {
      this.count = count;
      this.podTemplateRef = new PodTemplateRef();
      this.podTemplateRef.name = podTemplate;
    }
  }

  /** A PodTemplate in the request's namespace. */
  public static class PodTemplateRef extends Open {
    public String name;
  }

  /** The autoscaler's answer: Accepted, Provisioned, Failed, BookingExpired, CapacityRevoked. */
  public static class Status extends Open {
    public List<Condition> conditions;
  }
}
