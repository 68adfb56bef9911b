package dev.berth.webhook.dra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The devices a pod holds through its claims, per quota resource. */
class PodClaimsTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  static final DeviceClassMappings MAPPINGS =
      new DeviceClassMappings(
          Map.of(
              "gpu.example.com", "example.com/gpu",
              "h100.example.com", "example.com/gpu",
              "mig-1g.example.com", "example.com/mig-1g"));

  /** The templates and claims of namespace team-a, by name. */
  static final ClaimSource SOURCE =
      new ClaimSource() {
        @Override
        public Optional<JsonNode> template(String namespace, String name) {
          return Optional.ofNullable(TEMPLATES.get(name))
              .filter(t -> namespace.equals("team-a"))
              .map(spec -> json("{spec: {spec: {devices: {requests: " + spec + "}}}}"));
        }

        @Override
        public Optional<JsonNode> claim(String namespace, String name) {
          return Optional.ofNullable(CLAIMS.get(name))
              .filter(t -> namespace.equals("team-a"))
              .map(spec -> json("{spec: {devices: {requests: " + spec + "}}}"));
        }
      };

  static final Map<String, String> TEMPLATES =
      Map.of(
          "one-gpu", "[{name: g, exactly: {deviceClassName: gpu.example.com}}]",
          "two-h100", "[{name: g, exactly: {deviceClassName: h100.example.com, count: 2}}]",
          "gpu-and-mig",
              "[{name: g, exactly: {deviceClassName: gpu.example.com, count: 3}},"
                  + " {name: m, exactly: {deviceClassName: mig-1g.example.com, count: 2}}]",
          "all-gpus",
              "[{name: g, exactly: {deviceClassName: gpu.example.com, allocationMode: All}}]",
          "unmapped", "[{name: g, exactly: {deviceClassName: fpga.example.com}}]",
          "either",
              "[{name: g, firstAvailable: [{name: big, deviceClassName: h100.example.com,"
                  + " count: 1}, {name: small, deviceClassName: gpu.example.com, count: 4}]}]");

  static final Map<String, String> CLAIMS =
      Map.of("shared", "[{name: g, exactly: {deviceClassName: gpu.example.com, count: 4}}]");

  static JsonNode json(String yaml) {
    try {
      return YAML.readTree(yaml);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  private static PodClaims of(String claims) {
    return PodClaims.of(
        "team-a", json("{resourceClaims: " + claims + "}"), "spec", SOURCE, MAPPINGS);
  }

  @Test
  void aTemplatesRequestIsOneDeviceUnlessItCountsMore() {
    assertThat(of("[{name: a, resourceClaimTemplateName: one-gpu}]").perPod())
        .isEqualTo(Map.of("example.com/gpu", 1L));
    assertThat(of("[{name: a, resourceClaimTemplateName: two-h100}]").perPod())
        .isEqualTo(Map.of("example.com/gpu", 2L));
  }

  @Test
  void requestsAndTemplatesAddUpPerResourceAndClassesMayShareOne() {
    PodClaims claims =
        of(
            "[{name: a, resourceClaimTemplateName: one-gpu},"
                + " {name: b, resourceClaimTemplateName: two-h100},"
                + " {name: c, resourceClaimTemplateName: gpu-and-mig}]");
    assertThat(claims.perPod()).isEqualTo(Map.of("example.com/gpu", 6L, "example.com/mig-1g", 2L));
    assertThat(claims.problems()).isEmpty();
  }

  @Test
  void aSharedClaimIsKeptApartByName() {
    PodClaims claims =
        of("[{name: a, resourceClaimName: shared}, {name: b, resourceClaimTemplateName: one-gpu}]");
    assertThat(claims.perPod()).isEqualTo(Map.of("example.com/gpu", 1L));
    assertThat(claims.shared()).isEqualTo(Map.of("shared", Map.of("example.com/gpu", 4L)));
    assertThat(claims.total()).isEqualTo(Map.of("example.com/gpu", 5L));
  }

  @Test
  void firstAvailableIsChargedTheLargestOfItsSubrequests() {
    assertThat(of("[{name: a, resourceClaimTemplateName: either}]").perPod())
        .isEqualTo(Map.of("example.com/gpu", 4L));
  }

  @Test
  void whatCannotBeChargedIsRefusedAtItsField() {
    assertThat(of("[{name: a, resourceClaimTemplateName: unmapped}]").problems())
        .containsExactly(
            "spec.resourceClaims[0] → ResourceClaimTemplate unmapped"
                + " spec.spec.devices.requests[0].exactly.deviceClassName: DeviceClass"
                + " \"fpga.example.com\" is mapped to no quota resource"
                + " (resources.deviceClassMappings of Berth's configuration), so its devices"
                + " cannot be charged to a queue");
    assertThat(
            of("[{name: a, resourceClaimTemplateName: one-gpu},"
                    + " {name: b, resourceClaimTemplateName: all-gpus}]")
                .problems())
        .singleElement()
        .asString()
        .startsWith(
            "spec.resourceClaims[1] → ResourceClaimTemplate all-gpus"
                + " spec.spec.devices.requests[0].exactly.allocationMode: All allocates every"
                + " matching device");
    assertThat(of("[{name: a, resourceClaimTemplateName: gone}]").problems())
        .containsExactly(
            "spec.resourceClaims[0].resourceClaimTemplateName: ResourceClaimTemplate gone not"
                + " found");
    assertThat(of("[{name: a, resourceClaimName: gone}]").problems())
        .containsExactly("spec.resourceClaims[0].resourceClaimName: ResourceClaim gone not found");
  }

  @Test
  void withNoMappingEveryClassIsUnmapped() {
    PodClaims claims =
        PodClaims.of(
            "team-a",
            json("{resourceClaims: [{name: a, resourceClaimTemplateName: one-gpu}]}"),
            "spec",
            SOURCE,
            DeviceClassMappings.NONE);
    assertThat(claims.perPod()).isEmpty();
    assertThat(claims.problems()).singleElement().asString().contains("gpu.example.com");
  }
}
