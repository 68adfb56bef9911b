package dev.berth.webhook.validation;

import dev.berth.api.v1beta1.Workload;
import dev.berth.webhook.dra.SharedClaimRequests;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A Workload's {@code berth.dev/device-requests} and {@code berth.dev/shared-device-requests}
 * annotations are the devices its pods hold through ResourceClaims (each pod's own, and the claims
 * they share), written by the operator when it creates the Workload and charged against quota from
 * then on (docs/dra.md), and {@code berth.dev/shared-claim-requests} the selectors its shared
 * claims carry, which decide the flavors it may be admitted on: changing or removing one would
 * change what the Workload is charged or where, so each keeps its value for the Workload's life.
 */
final class DeviceRequestsAnnotation {
  static final String KEY = "berth.dev/device-requests";
  static final String SHARED_KEY = "berth.dev/shared-device-requests";

  private DeviceRequestsAnnotation() {}

  static List<FieldError> validateUpdate(Workload old, Workload wl) {
    List<FieldError> errors = new ArrayList<>();
    for (String key : List.of(KEY, SHARED_KEY, SharedClaimRequests.ANNOTATION)) {
      if (!Objects.equals(value(old, key), value(wl, key))) {
        errors.add(
            FieldError.forbidden(
                FieldPath.root("metadata").child("annotations").key(key),
                key.equals(SharedClaimRequests.ANNOTATION)
                    ? "the selectors its shared ResourceClaims carried when it was created, which"
                        + " decide the flavors it may be admitted on: field is immutable"
                    : "the devices the Workload's pods hold through ResourceClaims, charged against"
                        + " quota since its creation: field is immutable"));
      }
    }
    return errors;
  }

  private static String value(Workload wl, String key) {
    Map<String, String> annotations =
        wl.getMetadata() == null ? null : wl.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(key);
  }
}
