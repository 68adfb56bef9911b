package dev.berth.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.berth.api.v1beta1.BerthKinds;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.integration.jobset.JobSet;
import dev.berth.operator.provisioning.ProvisioningRequest;
import io.fabric8.kubernetes.api.model.DefaultKubernetesResourceList;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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

  /** A Workload as the API server sends it: two writers' managedFields, then spec and status. */
  private static final String MANAGED =
      """
      {"apiVersion":"berth.dev/v1beta1","kind":"Workload",
       "metadata":{"name":"w","namespace":"team-a","uid":"u-1","resourceVersion":"7",
        "labels":{"team":"a"},
        "managedFields":[
         {"manager":"runner","operation":"Update","apiVersion":"berth.dev/v1beta1",
          "time":"2026-12-06T06:00:00Z","fieldsType":"FieldsV1",
          "fieldsV1":{"f:spec":{".":{},"f:queueName":{}}}},
         {"manager":"berth","operation":"Update","apiVersion":"berth.dev/v1beta1",
          "subresource":"status","fieldsType":"FieldsV1",
          "fieldsV1":{"f:status":{"f:conditions":{"k:{\\"type\\":\\"Admitted\\"}":{}}}}}],
        "finalizers":["berth.dev/resource-in-use"]},
       "spec":{"queueName":"lq"},
       "status":{"conditions":[{"type":"Admitted","status":"True","reason":"Admitted",
        "message":"m","lastTransitionTime":"2026-12-06T06:00:01Z"}]}}
      """;

  @Test
  void whatTheClientReadsComesWithoutManagedFieldsAndWithEverythingElse() throws Exception {
    KubernetesSerialization serialization = Clients.serialization();
    String event = "{\"type\":\"MODIFIED\",\"object\":" + MANAGED + "}";
    String list =
        "{\"apiVersion\":\"berth.dev/v1beta1\",\"kind\":\"WorkloadList\","
            + "\"metadata\":{\"resourceVersion\":\"9\"},\"items\":["
            + MANAGED
            + "]}";
    List<Workload> read =
        List.of(
            (Workload) serialization.unmarshal(event, WatchEvent.class).getObject(),
            serialization.unmarshal(MANAGED, Workload.class),
            serialization
                .unmarshal(
                    new ByteArrayInputStream(list.getBytes(StandardCharsets.UTF_8)),
                    new TypeReference<DefaultKubernetesResourceList<Workload>>() {})
                .getItems()
                .get(0));
    // Everything but managedFields, as fabric8's own decoding reads it.
    Workload plain = new KubernetesSerialization().unmarshal(MANAGED, Workload.class);
    assertThat(plain.getMetadata().getManagedFields()).hasSize(2);
    plain.getMetadata().setManagedFields(null);
    for (Workload w : read) {
      assertThat(w.getMetadata().getManagedFields()).isNullOrEmpty();
      assertThat(w.getMetadata().getAdditionalProperties()).isEmpty();
      assertThat(serialization.asJson(w)).isEqualTo(serialization.asJson(plain));
    }
  }

  @Test
  void anObjectWithManagedFieldsIsWrittenWithThem() {
    // Only reading skips them: an object that has them (none of the operator's) keeps them.
    Workload plain = new KubernetesSerialization().unmarshal(MANAGED, Workload.class);
    String written = Clients.serialization().asJson(plain);
    assertThat(written).contains("\"managedFields\"").contains("\"manager\":\"berth\"");
  }

  @Test
  void aJsonMessageReadsAsTheGeneralWayReadsIt() {
    // The short way (one reader per class, from the bytes) against fabric8's stream-sniffing way.
    KubernetesSerialization serialization = Clients.serialization();
    KubernetesSerialization general = Clients.withKinds(new KubernetesSerialization());
    String event = " \n\t{\"type\":\"MODIFIED\",\"object\":" + MANAGED + "}";
    for (int i = 0; i < 2; i++) { // the second time from the reader kept for the class
      WatchEvent read = serialization.unmarshal(event, WatchEvent.class);
      WatchEvent expected = general.unmarshal(event, WatchEvent.class);
      ((HasMetadata) expected.getObject()).getMetadata().setManagedFields(null);
      assertThat(read.getType()).isEqualTo("MODIFIED");
      assertThat(read.getObject()).isExactlyInstanceOf(Workload.class);
      assertThat(serialization.asJson(read)).isEqualTo(serialization.asJson(expected));
    }
    assertThat(serialization.unmarshal("[\"a\",\"b\"]", List.class)).containsExactly("a", "b");
  }

  @Test
  void yamlAndBrokenJsonAreReadAndRefusedAsFabric8Does() {
    KubernetesSerialization serialization = Clients.serialization();
    Workload fromYaml =
        serialization.unmarshal(
            "apiVersion: berth.dev/v1beta1\nkind: Workload\nmetadata: {name: w}\n"
                + "spec: {queueName: lq}\n",
            Workload.class);
    assertThat(fromYaml.getSpec().queueName).isEqualTo("lq");
    String broken = "{\"type\":\"MODIFIED\",\"object\":{\"kind\":";
    assertThatThrownBy(() -> serialization.unmarshal(broken, WatchEvent.class))
        .isInstanceOf(KubernetesClientException.class)
        .hasCauseInstanceOf(IOException.class);
    assertThatThrownBy(() -> new KubernetesSerialization().unmarshal(broken, WatchEvent.class))
        .isInstanceOf(KubernetesClientException.class)
        .hasCauseInstanceOf(IOException.class);
  }
}
