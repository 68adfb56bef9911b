package dev.berth.operator.integration;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.berth.api.v1beta1.Workload;
import dev.berth.engine.model.SharedClaimRequest;
import dev.berth.operator.admission.ModelTranslator;
import dev.berth.operator.kube.Copies;
import dev.berth.testing.Workloads;
import dev.berth.webhook.dra.ClaimSource;
import dev.berth.webhook.dra.DeviceClassMappings;
import dev.berth.webhook.dra.SharedClaimRequests;
import io.fabric8.kubernetes.api.model.PodResourceClaimBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A new Workload records, with the charge of its shared ResourceClaims, each claim's requests of
 * mapped DeviceClasses and the selectors they carry, which reach the engine's pod set they are
 * charged to.
 */
class SharedClaimRecorderTest {
  private static final String GPU = "example.com/gpu";
  private static final String BIG =
      "device.capacity['gpu.example.com'].memory.compareTo(quantity('80Gi')) >= 0";

  /** Claim shared: one request with a selector, one firstAvailable; counts its reads. */
  private static final class Source implements ClaimSource {
    final AtomicInteger claimReads = new AtomicInteger();

    @Override
    public Optional<JsonNode> template(String namespace, String name) {
      return Optional.empty();
    }

    @Override
    public Optional<JsonNode> claim(String namespace, String name) {
      claimReads.incrementAndGet();
      try {
        return Optional.of(
            new ObjectMapper(new YAMLFactory())
                .readTree(
                    "{spec: {devices: {requests: [{name: gpus, exactly: {deviceClassName:"
                        + " gpu.example.com, count: 2, selectors: [{cel: {expression: \""
                        + BIG
                        + "\"}}]}}, {name: any, firstAvailable: [{name: small, deviceClassName:"
                        + " gpu.example.com}, {name: pair, deviceClassName: gpu.example.com, count: 2}]}]}}}"));
      } catch (java.io.IOException e) {
        throw new AssertionError(e);
      }
    }
  }

  @Test
  void theSharedClaimsRequestsAndSelectorsReachThePodSetTheyAreChargedTo() {
    Workload wl =
        Workloads.named("serve").in("team").uid("uid-1").queue("q").podSet("main", 4).build();
    wl.getSpec()
        .podSets
        .get(0)
        .template
        .getSpec()
        .setResourceClaims(
            List.of(
                new PodResourceClaimBuilder()
                    .withName("s")
                    .withResourceClaimName("shared")
                    .build()));
    var workers = Copies.deep(wl.getSpec().podSets.get(0));
    workers.name = "workers";
    wl.getSpec().podSets = List.of(wl.getSpec().podSets.get(0), workers);
    Source source = new Source();

    assertThat(
            new DeviceCharges(new DeviceClassMappings(Map.of("gpu.example.com", GPU)))
                .charge(wl, source))
        .isNull();

    assertThat(source.claimReads).as("read once for its charge and its selectors").hasValue(1);
    assertThat(wl.getMetadata().getAnnotations()).containsKey(SharedClaimRequests.ANNOTATION);
    var podSets = ModelTranslator.workload(wl).podSets();
    assertThat(podSets.get(0).sharedClaims())
        .containsExactly(
            new SharedClaimRequest("shared", "gpus", "gpu.example.com", GPU, List.of(BIG)),
            // Either subrequest may be allocated: each must keep to the flavor.
            new SharedClaimRequest("shared", "any/small", "gpu.example.com", GPU, List.of()),
            new SharedClaimRequest("shared", "any/pair", "gpu.example.com", GPU, List.of()));
    assertThat(podSets.get(1).sharedClaims()).as("charged to the first pod set only").isEmpty();
  }
}
