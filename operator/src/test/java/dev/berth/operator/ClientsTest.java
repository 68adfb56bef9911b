package dev.berth.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.BerthKinds;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.jobset.JobSet;
import dev.berth.operator.provisioning.ProvisioningRequest;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A watch event is decoded the way fabric8's watch manager decodes it (the message as a {@link
 * WatchEvent}, its object by apiVersion and kind): with the operator's client, straight into the
 * watched class; without the registration, into maps that fabric8 then converts again.
 */
class ClientsTest {
  private static final String EVENT =
      """
      {"type":"MODIFIED","object":{"apiVersion":"%s","kind":"%s",
       "metadata":{"name":"w","namespace":"team-a","uid":"u-1","resourceVersion":"7"},
       "spec":%s}}
      """;

  private static String event(Class<? extends HasMetadata> kind) {
    return EVENT.formatted(HasMetadata.getApiVersion(kind), HasMetadata.getKind(kind), "{}");
  }

  private static String workloadEvent() {
    return EVENT.formatted("berth.dev/v1beta1", "Workload", "{\"queueName\":\"lq\"}");
  }

  @Test
  void everyCustomKindTheOperatorWatchesDecodesAsItsClass() {
    List<Class<? extends HasMetadata>> kinds = new ArrayList<>(BerthKinds.ALL);
    kinds.add(JobSet.class);
    kinds.add(ProvisioningRequest.class);
    KubernetesSerialization serialization = Clients.serialization();
    for (Class<? extends HasMetadata> kind : kinds) {
      WatchEvent decoded = serialization.unmarshal(event(kind), WatchEvent.class);
      assertThat(decoded.getObject()).as(kind.getSimpleName()).isExactlyInstanceOf(kind);
      assertThat(((HasMetadata) decoded.getObject()).getMetadata().getResourceVersion())
          .isEqualTo("7");
    }
    Workload w = (Workload) serialization.unmarshal(workloadEvent(), WatchEvent.class).getObject();
    assertThat(w.getSpec().queueName).isEqualTo("lq");
  }

  @Test
  void withoutTheRegistrationTheObjectIsGeneric() {
    // What the test above guards against: the second decoding pass fabric8 then makes.
    WatchEvent decoded =
        new KubernetesSerialization().unmarshal(event(Workload.class), WatchEvent.class);
    assertThat(decoded.getObject()).isExactlyInstanceOf(GenericKubernetesResource.class);
  }

  @Test
  void theClientItBuildsUsesThatDecoding() {
    try (KubernetesClient client =
        Clients.builder(Duration.ofSeconds(5))
            .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build())
            .build()) {
      WatchEvent decoded =
          client.getKubernetesSerialization().unmarshal(event(Workload.class), WatchEvent.class);
      assertThat(decoded.getObject()).isExactlyInstanceOf(Workload.class);
    }
  }
}
