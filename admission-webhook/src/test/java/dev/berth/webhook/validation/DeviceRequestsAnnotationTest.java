package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The devices a Workload is charged for are kept as the operator wrote them at creation. */
class DeviceRequestsAnnotationTest {
  private static Workload annotated(Map<String, String> annotations) {
    Workload wl = new Workload();
    wl.setMetadata(new ObjectMetaBuilder().withName("w").withAnnotations(annotations).build());
    return wl;
  }

  private static final Workload CHARGED =
      annotated(Map.of("berth.dev/device-requests", "{\"main\":{\"example.com/gpu\":2}}"));

  @Test
  void itCannotBeChangedOrRemoved() {
    assertThat(
            DeviceRequestsAnnotation.validateUpdate(
                CHARGED, annotated(Map.of("berth.dev/device-requests", "{}"))))
        .singleElement()
        .satisfies(
            e -> assertThat(e.path()).isEqualTo("metadata.annotations[berth.dev/device-requests]"));
    assertThat(DeviceRequestsAnnotation.validateUpdate(CHARGED, annotated(Map.of()))).hasSize(1);
    assertThat(
            DeviceRequestsAnnotation.validateUpdate(
                annotated(Map.of()), annotated(Map.of("berth.dev/device-requests", "{}"))))
        .hasSize(1);
  }

  @Test
  void theSharedClaimsChargeCannotBeAddedChangedOrRemovedEither() {
    Workload shared =
        annotated(Map.of("berth.dev/shared-device-requests", "{\"main\":{\"example.com/gpu\":4}}"));
    assertThat(DeviceRequestsAnnotation.validateUpdate(shared, annotated(Map.of())))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.path())
                    .isEqualTo("metadata.annotations[berth.dev/shared-device-requests]"));
    assertThat(DeviceRequestsAnnotation.validateUpdate(annotated(Map.of()), shared)).hasSize(1);
    assertThat(DeviceRequestsAnnotation.validateUpdate(shared, shared)).isEmpty();
  }

  @Test
  void theSharedClaimsSelectorsCannotBeChangedToFitAnotherFlavor() {
    String key = dev.berth.webhook.dra.SharedClaimRequests.ANNOTATION;
    Workload recorded =
        annotated(
            Map.of(
                key,
                "{\"main\":[{\"claim\":\"s\",\"request\":\"gpus\",\"deviceClass\":\"c\","
                    + "\"resource\":\"example.com/gpu\",\"selectors\":[]}]}"));
    Workload forged = annotated(Map.of(key, "{}"));
    assertThat(DeviceRequestsAnnotation.validateUpdate(recorded, forged))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.path()).isEqualTo("metadata.annotations[" + key + "]");
              assertThat(e.message()).contains("decide the flavors");
            });
    assertThat(DeviceRequestsAnnotation.validateUpdate(recorded, annotated(Map.of()))).hasSize(1);
  }

  @Test
  void otherAnnotationsAreFree() {
    Map<String, String> more = new java.util.HashMap<>(CHARGED.getMetadata().getAnnotations());
    more.put("team", "a");
    assertThat(DeviceRequestsAnnotation.validateUpdate(CHARGED, annotated(more))).isEmpty();
    assertThat(DeviceRequestsAnnotation.validateUpdate(annotated(null), annotated(Map.of())))
        .isEmpty();
  }
}
