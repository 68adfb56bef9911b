package dev.berth.webhook.validation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.berth.api.v1beta1.FlavorDeviceSelector;
import dev.berth.webhook.dra.FlavorDeviceSelectors;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The pod queue rule on a pod that names a shared ResourceClaim: the claim must carry the device
 * selectors of the flavor its Workload was admitted on, as it is when the pod is created.
 */
class SharedClaimFlavorsTest {
  private static final String OPERATOR = "system:serviceaccount:berth-system:berth";
  private static final String AT_LEAST_80GI =
      "device.capacity['gpu.example.com'].memory.compareTo(quantity('80Gi')) >= 0";
  private static final String OWNED_BY_SERVE =
      "{apiVersion: batch/v1, kind: Job, name: serve, uid: serve-uid, controller: true}";
  private static final String SHARED_ONLY = "[{name: s, resourceClaimName: shared}]";

  /** Job serve's Workload, charged the shared claim and admitted on {@code flavor}. */
  private static String workload(String flavor) {
    return "{metadata: {name: job-serve, annotations: {berth.dev/device-requests:"
        + " '{\"main\":{\"example.com/gpu\":2}}', berth.dev/shared-device-requests:"
        + " '{\"main\":{\"example.com/gpu\":4}}'}},"
        + " status: {admission: {podSetAssignments: [{name: main, flavors: {example.com/gpu: "
        + flavor
        + "}}]}}}";
  }

  /**
   * ClaimResourcesTest's team-a, with flavor gpu-80gi by memory and claim shared carrying {@code
   * selectors}.
   */
  private static QueueScope scope(String flavor, String... selectors) {
    return new ClaimResourcesTest.WithClaims() {
      @Override
      public List<JsonNode> workloadsOwnedBy(String namespace, String ownerUid) {
        return List.of(yaml(SharedClaimFlavorsTest.workload(flavor)));
      }

      @Override
      public Optional<JsonNode> claim(String namespace, String name) {
        StringBuilder s = new StringBuilder();
        for (String e : selectors) {
          s.append(s.length() == 0 ? "" : ", ")
              .append("{cel: {expression: \"")
              .append(e)
              .append("\"}}");
        }
        return Optional.of(
            yaml(
                "{spec: {devices: {requests: [{name: r, exactly: {deviceClassName:"
                    + " gpu.example.com, count: 4, selectors: ["
                    + s
                    + "]}}]}}}"));
      }

      @Override
      public FlavorDeviceSelectors deviceSelectors(String name) {
        return name.equals("gpu-80gi")
            ? FlavorDeviceSelectors.of(List.of(new FlavorDeviceSelector(null, AT_LEAST_80GI)))
            : FlavorDeviceSelectors.NONE;
      }
    };
  }

  private static JsonNode yaml(String text) {
    try {
      return new ObjectMapper(new YAMLFactory()).readTree(text);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  private static List<FieldError> create(QueueScope scope) {
    JsonNode pod = TestObjects.json(PodQueueRuleTest.pod("team-a", OWNED_BY_SERVE, "{}"));
    ((ObjectNode) pod.get("spec")).set("resourceClaims", yaml(SHARED_ONLY));
    return new PodQueueRule(new RequestGuard(OPERATOR), scope).onCreate("team-a", pod, "dana");
  }

  @Test
  void aClaimWithoutTheFlavorsSelectorIsRefusedNamingBoth() {
    assertThat(create(scope("gpu-80gi")))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.path()).isEqualTo("metadata.ownerReferences[0]");
              assertThat(e.message())
                  .startsWith(
                      "shared ResourceClaim shared (request r, DeviceClass gpu.example.com) does"
                          + " not carry the device selector '"
                          + AT_LEAST_80GI
                          + "' of flavor gpu-80gi, which its Workload was admitted on for"
                          + " example.com/gpu");
            });
  }

  @Test
  void aClaimCarryingItOrAFlavorWithoutSelectorsIsAllowed() {
    assertThat(create(scope("gpu-80gi", "device.driver == 'gpu.example.com'", AT_LEAST_80GI)))
        .isEmpty();
    assertThat(create(scope("gpu-any"))).isEmpty();
  }
}
