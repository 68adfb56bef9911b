package dev.berth.operator.integration;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.admission.DeviceRequests;
import dev.berth.operator.admission.ModelTranslator;
import dev.berth.operator.kube.Copies;
import dev.berth.testing.Workloads;
import dev.berth.webhook.dra.ClaimSource;
import dev.berth.webhook.dra.DeviceClassMappings;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A new Workload is charged the devices of its pods' ResourceClaimTemplates per pod, and of a
 * shared ResourceClaim once for the Workload; what cannot be charged keeps it from being created.
 */
class DeviceChargesTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final String GPU = "example.com/gpu";

  private static final DeviceCharges CHARGES =
      new DeviceCharges(new DeviceClassMappings(Map.of("gpu.example.com", GPU)));

  private static final ClaimSource SOURCE =
      new ClaimSource() {
        @Override
        public Optional<JsonNode> template(String namespace, String name) {
          return switch (name) {
            case "two-gpus" -> Optional.of(yaml("{spec: {spec: " + requests(2) + "}}"));
            case "all" ->
                Optional.of(
                    yaml(
                        "{spec: {spec: {devices: {requests: [{name: r, exactly: {deviceClassName:"
                            + " gpu.example.com, allocationMode: All}}]}}}}"));
            default -> Optional.empty();
          };
        }

        @Override
        public Optional<JsonNode> claim(String namespace, String name) {
          return name.equals("shared")
              ? Optional.of(yaml("{spec: " + requests(4) + "}"))
              : Optional.empty();
        }
      };

  private static String requests(int count) {
    return "{devices: {requests: [{name: r, exactly: {deviceClassName: gpu.example.com, count: "
        + count
        + "}}]}}";
  }

  private static JsonNode yaml(String text) {
    try {
      return YAML.readTree(text);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  private static Workload workload(int count, PodResourceClaim... claims) {
    Workload wl =
        Workloads.named("train")
            .in("team")
            .uid("uid-1")
            .queue("q")
            .podSet("main", count)
            .request("cpu", "1")
            .build();
    wl.getSpec().podSets.get(0).template.getSpec().setResourceClaims(List.of(claims));
    return wl;
  }

  private static PodResourceClaim template(String name) {
    return new PodResourceClaimBuilder().withName(name).withResourceClaimTemplateName(name).build();
  }

  private static PodResourceClaim claim(String name) {
    return new PodResourceClaimBuilder().withName(name).withResourceClaimName(name).build();
  }

  @Test
  void aTemplatesDevicesAreChargedPerPod() {
    Workload wl = workload(4, template("two-gpus"));
    // As an adapter may build it: an immutable map of its own annotations.
    wl.getMetadata().setAnnotations(Map.of("berth.dev/submitted-at", "2026-01-01T00:00:00Z"));
    assertThat(CHARGES.charge(wl, SOURCE)).isNull();
    assertThat(wl.getMetadata().getAnnotations()).containsKey("berth.dev/submitted-at");
    assertThat(DeviceRequests.of(wl)).isEqualTo(Map.of("main", Map.of(GPU, 2L)));
    var podSet = ModelTranslator.workload(wl).podSets().get(0);
    assertThat(podSet.requests()).containsEntry(GPU, 2L).containsEntry("cpu", 1000L);
    assertThat(podSet.count()).isEqualTo(4);
  }

  @Test
  void aSharedClaimIsChargedOnceForThePodSetWhateverItsCount() {
    Workload wl = workload(4, claim("shared"), template("two-gpus"));
    assertThat(CHARGES.charge(wl, SOURCE)).isNull();
    assertThat(DeviceRequests.shared(wl)).isEqualTo(Map.of("main", Map.of(GPU, 4L)));
    var podSet = ModelTranslator.workload(wl).podSets().get(0);
    // 4 pods of 2 GPUs each, and the claim's 4 GPUs once: 12, not 4 × 6 = 24.
    assertThat(podSet.requests()).containsEntry(GPU, 2L);
    assertThat(podSet.shared()).isEqualTo(Map.of(GPU, 4L));
    assertThat(podSet.total(podSet.count())).containsEntry(GPU, 12L);
    // Partial admission shrinks what the pods hold, never the claim.
    assertThat(podSet.total(1)).containsEntry(GPU, 6L);
  }

  @Test
  void aClaimSharedByTwoPodSetsIsChargedToTheFirstOnly() {
    Workload wl = workload(2, claim("shared"));
    var second = Copies.deep(wl.getSpec().podSets.get(0));
    second.name = "workers";
    second.count = 3;
    wl.getSpec().podSets = List.of(wl.getSpec().podSets.get(0), second);
    assertThat(CHARGES.charge(wl, SOURCE)).isNull();
    assertThat(DeviceRequests.shared(wl)).isEqualTo(Map.of("main", Map.of(GPU, 4L)));
    assertThat(DeviceRequests.of(wl)).isEmpty();
    var podSets = ModelTranslator.workload(wl).podSets();
    assertThat(podSets.get(0).total(2)).containsEntry(GPU, 4L);
    assertThat(podSets.get(1).total(3)).doesNotContainKey(GPU);
  }

  @Test
  void whatCannotBeChargedIsNamedByItsField() {
    assertThat(CHARGES.charge(workload(1, template("all")), SOURCE))
        .startsWith(
            "spec.podSets[0].template.spec.resourceClaims[0] → ResourceClaimTemplate all"
                + " spec.spec.devices.requests[0].exactly.allocationMode: All");
    assertThat(CHARGES.charge(workload(1, template("gone")), SOURCE))
        .isEqualTo(
            "spec.podSets[0].template.spec.resourceClaims[0].resourceClaimTemplateName:"
                + " ResourceClaimTemplate gone not found");
    assertThat(DeviceCharges.NONE.charge(workload(1, template("two-gpus")), SOURCE))
        .contains("DeviceClass \"gpu.example.com\" is mapped to no quota resource");
  }

  @Test
  void aWorkloadWithoutClaimsIsLeftAlone() {
    Workload wl = workload(2);
    assertThat(CHARGES.charge(wl, SOURCE)).isNull();
    assertThat(DeviceRequests.of(wl)).isEmpty();
    assertThat(ModelTranslator.workload(wl).podSets().get(0).requests()).doesNotContainKey(GPU);
  }
}
