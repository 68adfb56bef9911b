package dev.berth.webhook.validation;

import dev.berth.api.v1beta1.Workload;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A Workload's {@code berth.dev/device-requests} annotation is the devices its pods hold through
 * ResourceClaims, written by the operator when it creates the Workload and charged against quota
 * from then on (docs/dra.md): changing or removing it would change what the Workload is charged, so
 * it keeps its value for the Workload's life.
 */
final class DeviceRequestsAnnotation {
  static final String KEY = "berth.dev/device-requests";
  private static final FieldPath PATH = FieldPath.root("metadata").child("annotations").key(KEY);

  private DeviceRequestsAnnotation() {}

  static List<FieldError> validateUpdate(Workload old, Workload wl) {
    String before = value(old);
    String after = value(wl);
    if (Objects.equals(before, after)) {
      return List.of();
    }
    return List.of(
        FieldError.forbidden(
            PATH,
            "the devices the Workload's pods hold through ResourceClaims, charged against quota"
                + " since its creation: field is immutable"));
  }

  private static String value(Workload wl) {
    Map<String, String> annotations =
        wl.getMetadata() == null ? null : wl.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(KEY);
  }
}
