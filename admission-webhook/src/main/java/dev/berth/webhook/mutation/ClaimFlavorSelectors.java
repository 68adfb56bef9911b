package dev.berth.webhook.mutation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.api.v1beta1.Berth;
import dev.berth.webhook.dra.ChargedDevices;
import dev.berth.webhook.dra.FlavorDeviceSelectors;
import dev.berth.webhook.validation.ClaimResources;
import dev.berth.webhook.validation.FieldError;
import dev.berth.webhook.validation.FieldPath;
import dev.berth.webhook.validation.PlainPods;
import dev.berth.webhook.validation.PodWorkload;
import dev.berth.webhook.validation.QueueScope;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Narrows the ResourceClaims Kubernetes makes from a pod's ResourceClaimTemplates to the devices of
 * the flavors its Workload was admitted on (docs/dra.md): each request whose DeviceClass is mapped
 * to a quota resource gets the device selectors of the flavor that resource was assigned, so that
 * kube-scheduler allocates only devices the flavor selects ({@code spec.deviceSelectors}).
 *
 * <p>The claim, not the template, is changed: templates are the team's objects, and a Job's pod
 * template cannot be pointed at another once created. A claim's spec cannot change once stored, and
 * the resourceclaim controller gives a pod only claims it owns, which all come through here whoever
 * creates them; so a pod of an admitted Workload gets devices of its flavor only.
 *
 * <p>A claim of a pod of any kind Berth queues: its Workload and pod set are found through the
 * pod's owners ({@link PodWorkload}), read from the API server; any other claim is left as written.
 */
public final class ClaimFlavorSelectors implements Defaulter {
  private final QueueScope scope;

  public ClaimFlavorSelectors(QueueScope scope) {
    this.scope = scope;
  }

  /**
   * Why the claim may not be made yet, or empty: its pod still waits behind Berth's admission gate
   * (a queued plain Pod, a Deployment's, a pod group's). The resourceclaim controller makes a pod's
   * claims as soon as the pod exists, gated or not, and a claim's spec cannot change once stored;
   * made now, before its Workload is admitted, the claim could carry no flavor's selectors.
   * Refused, the controller tries again, and the operator's removal of the gate (on admission)
   * brings it back at once, to make the claim narrowed to the admitted flavor.
   */
  public Optional<FieldError> refusal(JsonNode claim, String namespace) {
    Optional<JsonNode> pod = ownerPod(claim, namespace);
    if (pod.isEmpty()) {
      return Optional.empty();
    }
    String name = pod.get().at("/metadata/name").asText();
    if (PlainPods.gated(pod.get(), Berth.ADMISSION_SCHEDULING_GATE)) {
      return Optional.of(
          FieldError.forbidden(
              FieldPath.root("metadata").child("ownerReferences"),
              "pod "
                  + name
                  + " waits behind the "
                  + Berth.ADMISSION_SCHEDULING_GATE
                  + " scheduling gate for its Workload's admission: its claims are made once it"
                  + " is admitted, with the device selectors of its flavor"));
    }
    return beyondCharge(namespace, pod.get())
        .map(
            problem ->
                FieldError.forbidden(
                    FieldPath.root("spec").child("devices"),
                    problem + " (the claims of pod " + name + ")"));
  }

  /**
   * Why the pod's claims, as its templates are now, hold more than its Workload's pod set was
   * charged, or empty (or when it has no Workload: the pod queue rule's to judge). Made when the
   * pod is admitted, a gated pod's claims come from its templates as they are then: one made again
   * bigger since its Workload was charged would otherwise be allocated devices beyond the charge.
   */
  private Optional<String> beyondCharge(String namespace, JsonNode pod) {
    Optional<PodWorkload> at = PodWorkload.of(namespace, pod, scope);
    Optional<JsonNode> workload = at.flatMap(w -> w.workload(namespace, scope));
    if (workload.isEmpty()) {
      return Optional.empty();
    }
    ClaimResources claims = ClaimResources.of(namespace, pod.path("spec"), scope);
    return Optional.ofNullable(
        claims.beyond(ChargedDevices.of(workload.get()), at.get().podSet(), claims.resources()));
  }

  /** The pod that owns the claim (its controller owner, same UID), as stored. */
  private Optional<JsonNode> ownerPod(JsonNode claim, String namespace) {
    return controller(claim)
        .filter(o -> isKind(o, "v1", "Pod"))
        .flatMap(
            owner ->
                scope.pod(namespace, owner.path("name").asText()).filter(p -> sameUid(p, owner)));
  }

  @Override
  public void apply(ObjectNode claim, String namespace) {
    Optional<JsonNode> pod = ownerPod(claim, namespace);
    if (pod.isEmpty()) {
      return; // no such pod: no pod will use the claim
    }
    Map<String, String> flavors =
        PodWorkload.of(namespace, pod.get(), scope)
            .map(at -> at.flavors(namespace, scope))
            .orElse(Map.of());
    if (flavors.isEmpty()) {
      return;
    }
    Map<String, FlavorDeviceSelectors> selectors = new TreeMap<>();
    for (JsonNode request : claim.path("spec").path("devices").path("requests")) {
      narrow(request.path("exactly"), flavors, selectors);
      for (JsonNode sub : request.path("firstAvailable")) {
        narrow(sub, flavors, selectors);
      }
    }
  }

  /** Adds the selectors of the flavor of the request's resource that it does not carry yet. */
  private void narrow(
      JsonNode request, Map<String, String> flavors, Map<String, FlavorDeviceSelectors> cache) {
    if (!(request instanceof ObjectNode r) || !r.path("deviceClassName").isTextual()) {
      return;
    }
    String deviceClass = r.path("deviceClassName").asText();
    Optional<String> flavor = scope.deviceClasses().resourceFor(deviceClass).map(flavors::get);
    if (flavor.isEmpty()) {
      return;
    }
    FlavorDeviceSelectors flavorSelectors =
        cache.computeIfAbsent(flavor.get(), scope::deviceSelectors);
    for (String expression : flavorSelectors.expressionsFor(deviceClass)) {
      ArrayNode list = r.withArray("selectors");
      boolean present = false;
      for (JsonNode s : list) {
        present |= expression.equals(s.path("cel").path("expression").asText(null));
      }
      if (!present) {
        list.addObject().putObject("cel").put("expression", expression);
      }
    }
  }

  private static Optional<JsonNode> controller(JsonNode object) {
    for (JsonNode o : object.path("metadata").path("ownerReferences")) {
      if (o.path("controller").asBoolean(false)) {
        return Optional.of(o);
      }
    }
    return Optional.empty();
  }

  private static boolean isKind(JsonNode owner, String apiVersion, String kind) {
    return apiVersion.equals(owner.path("apiVersion").asText())
        && kind.equals(owner.path("kind").asText());
  }

  private static boolean sameUid(JsonNode object, JsonNode owner) {
    return object.at("/metadata/uid").asText().equals(owner.path("uid").asText());
  }
}
