package dev.berth.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.Clients;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The operator's watch-event decoding gives what fabric8's own gives (same class, same contents)
 * for every shape an event takes, without building a JSON tree of the object when its apiVersion
 * and kind come first.
 */
class WatchEventDecoderTest {
  private static final String WORKLOAD =
      """
      {"metadata":{"name":"w","namespace":"team-a","uid":"u-1","resourceVersion":"42",
        "labels":{"class":"small"},"creationTimestamp":"2026-12-06T03:00:00Z"},
       "spec":{"queueName":"lq","priority":100,"podSets":[{"name":"main","count":2,
         "template":{"spec":{"containers":[{"name":"c","image":"busybox",
           "resources":{"requests":{"cpu":"500m","nvidia.com/gpu":"1"}}}]}}}]},
       "status":{"conditions":[{"type":"QuotaReserved","status":"True","reason":"QuotaReserved",
         "message":"Quota reserved in ClusterQueue cq","lastTransitionTime":"2026-12-06T03:00:01Z"}],
         "admission":{"clusterQueue":"cq","podSetAssignments":[{"name":"main","count":2,
           "flavors":{"cpu":"default"}}]}}}
      """;

  /** The Workload with these fields first, as the API server or another writer may put them. */
  private static String workload(String first) {
    return "{" + first + "," + WORKLOAD.strip().substring(1);
  }

  private static final List<String> EVENTS =
      List.of(
          // A custom resource as the API server sends it (keys sorted), and the other order.
          "{\"type\":\"MODIFIED\",\"object\":"
              + workload("\"apiVersion\":\"berth.dev/v1beta1\",\"kind\":\"Workload\"")
              + "}",
          "{\"type\":\"ADDED\",\"object\":"
              + workload("\"kind\":\"Workload\",\"apiVersion\":\"berth.dev/v1beta1\"")
              + "}",
          // The object before the type.
          "{\"object\":"
              + workload("\"apiVersion\":\"berth.dev/v1beta1\",\"kind\":\"Workload\"")
              + ",\"type\":\"DELETED\"}",
          // A kind after other fields, and a kind without apiVersion: fabric8 decides.
          "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"late\"},"
              + "\"apiVersion\":\"berth.dev/v1beta1\",\"kind\":\"Workload\"}}",
          "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Workload\",\"metadata\":{\"name\":\"x\"}}}",
          // A built-in kind.
          "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\","
              + "\"metadata\":{\"name\":\"p\",\"namespace\":\"n\"},"
              + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}}",
          // A kind with no class.
          "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\","
              + "\"metadata\":{\"name\":\"w\"},\"spec\":{\"size\":3,\"tags\":[\"a\"]}}}",
          // A bookmark, an expired watch, an empty object, no object.
          "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Workload\",\"apiVersion\":"
              + "\"berth.dev/v1beta1\",\"metadata\":{\"resourceVersion\":\"77\","
              + "\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}}",
          "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
              + "\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource version\","
              + "\"reason\":\"Expired\",\"code\":410}}",
          // Metadata that is not an object.
          "{\"type\":\"MODIFIED\",\"object\":{\"apiVersion\":\"berth.dev/v1beta1\","
              + "\"kind\":\"Workload\",\"metadata\":null,\"spec\":{\"queueName\":\"q\"}}}",
          "{\"type\":\"MODIFIED\",\"object\":{}}",
          "{\"type\":\"MODIFIED\",\"object\":null}",
          "{\"type\":\"MODIFIED\"}");

  @Test
  void decodesEveryEventAsFabric8Does() {
    KubernetesSerialization ours = Clients.serialization();
    KubernetesSerialization theirs = Clients.withKinds(new KubernetesSerialization());
    for (String json : EVENTS) {
      WatchEvent mine = ours.unmarshal(json, WatchEvent.class);
      WatchEvent fabric8s = theirs.unmarshal(json, WatchEvent.class);
      assertThat(mine.getType()).as(json).isEqualTo(fabric8s.getType());
      if (fabric8s.getObject() == null) {
        assertThat(mine.getObject()).as(json).isNull();
        continue;
      }
      assertThat(mine.getObject()).as(json).isExactlyInstanceOf(fabric8s.getObject().getClass());
      assertThat(ours.asJson(mine.getObject()))
          .as(json)
          .isEqualTo(theirs.asJson(fabric8s.getObject()));
    }
  }

  @Test
  void eachObjectHasTheClassItsKindNames() {
    KubernetesSerialization ours = Clients.serialization();
    assertThat(classOf(ours, EVENTS.get(0))).isEqualTo(Workload.class);
    assertThat(classOf(ours, EVENTS.get(1))).isEqualTo(Workload.class);
    assertThat(classOf(ours, EVENTS.get(5))).isEqualTo(Pod.class);
    assertThat(classOf(ours, EVENTS.get(6))).isEqualTo(GenericKubernetesResource.class);
    assertThat(classOf(ours, EVENTS.get(8))).isEqualTo(Status.class);
    Workload w = (Workload) ours.unmarshal(EVENTS.get(0), WatchEvent.class).getObject();
    assertThat(w.getSpec().podSets.get(0).template.getSpec().getContainers().get(0).getImage())
        .isEqualTo("busybox");
    assertThat(w.getStatus().admission.clusterQueue).isEqualTo("cq");
    assertThat(w.getMetadata().getResourceVersion()).isEqualTo("42");
  }

  @Test
  void buildsNoTreeOfAnObjectWhoseKindComesFirst() {
    CountingNodes withDecoder = new CountingNodes();
    CountingNodes without = new CountingNodes();
    decode(serialization(withDecoder, true), EVENTS.get(0));
    decode(serialization(without, false), EVENTS.get(0));
    assertThat(withDecoder.objects).as("decoded in one pass").hasValue(0);
    assertThat(without.objects).as("fabric8's tree of the object").hasValueGreaterThan(5);
  }

  @Test
  void theDecoderKeepsTheStringsInterned() {
    KubernetesSerialization ours = Clients.serialization();
    Workload a = (Workload) ours.unmarshal(EVENTS.get(0), WatchEvent.class).getObject();
    Workload b = (Workload) ours.unmarshal(EVENTS.get(1), WatchEvent.class).getObject();
    assertThat(b.getSpec().queueName).isSameAs(a.getSpec().queueName);
    assertThat(b.getStatus().conditions.get(0).message)
        .isSameAs(a.getStatus().conditions.get(0).message);
  }

  @Test
  void aVersionHeldAlreadyIsTheEventsObjectWithoutDecodingIt() {
    KubernetesSerialization ours = Clients.serialization();
    SharedVersions versions = Clients.versions(ours);
    Workload held =
        versions.intern((Workload) ours.unmarshal(EVENTS.get(0), WatchEvent.class).getObject());
    // The same uid and version with another spec, the type after the object: the held instance,
    // the rest of the object skipped and the rest of the event read.
    String same =
        "{\"object\":"
            + workload("\"apiVersion\":\"berth.dev/v1beta1\",\"kind\":\"Workload\"")
                .replace("\"lq\"", "\"not-decoded\"")
            + ",\"type\":\"DELETED\"}";
    WatchEvent event = ours.unmarshal(same, WatchEvent.class);
    assertThat(event.getObject()).isSameAs(held);
    assertThat(event.getType()).isEqualTo("DELETED");

    // Another version of it, or the same version to another client's versions: decoded.
    String newer = same.replace("\"42\"", "\"43\"");
    Workload decoded = (Workload) ours.unmarshal(newer, WatchEvent.class).getObject();
    assertThat(decoded).isNotSameAs(held);
    assertThat(decoded.getSpec().queueName).isEqualTo("not-decoded");
    assertThat(decoded.getMetadata().getResourceVersion()).isEqualTo("43");
    Workload elsewhere =
        (Workload) Clients.serialization().unmarshal(same, WatchEvent.class).getObject();
    assertThat(elsewhere.getSpec().queueName).isEqualTo("not-decoded");

    // A held version is of one class: the same uid and version of another kind is decoded.
    assertThat(versions.known(Pod.class, "u-1", "42")).isNull();
    assertThat(versions.known(Workload.class, "u-1", "42")).isSameAs(held);
    assertThat(versions.known(Workload.class, "u-1", "41")).isNull();
  }

  @Test
  void managedFieldsAheadOfTheUidAreSteppedOverNotKept() {
    // A custom resource's metadata as the API server sends it: keys sorted, managedFields first.
    String json =
        "{\"type\":\"MODIFIED\",\"object\":{\"apiVersion\":\"berth.dev/v1beta1\","
            + "\"kind\":\"Workload\",\"metadata\":{\"creationTimestamp\":\"2026-12-06T03:00:00Z\","
            + "\"labels\":{\"class\":\"small\"},\"managedFields\":[{\"manager\":\"berth\","
            + "\"operation\":\"Update\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:status\":"
            + "{\"f:conditions\":{}}}}],\"name\":\"w\",\"namespace\":\"team-a\","
            + "\"resourceVersion\":\"42\",\"uid\":\"u-1\"},\"spec\":{\"queueName\":\"lq\"}}}";
    KubernetesSerialization ours = Clients.serialization();
    Workload mine = (Workload) ours.unmarshal(json, WatchEvent.class).getObject();
    Workload fabric8s =
        (Workload)
            Clients.withKinds(new KubernetesSerialization())
                .unmarshal(json, WatchEvent.class)
                .getObject();
    assertThat(fabric8s.getMetadata().getManagedFields()).hasSize(1);
    assertThat(mine.getMetadata().getManagedFields()).isNullOrEmpty();
    fabric8s.getMetadata().setManagedFields(null);
    assertThat(ours.asJson(mine)).isEqualTo(ours.asJson(fabric8s));
    // The uid and version behind them are read: held, the same event is the held instance.
    Clients.versions(ours).intern(mine);
    assertThat(ours.unmarshal(json, WatchEvent.class).getObject()).isSameAs(mine);
  }

  private static Class<?> classOf(KubernetesSerialization s, String json) {
    return s.unmarshal(json, WatchEvent.class).getObject().getClass();
  }

  private static void decode(KubernetesSerialization s, String json) {
    assertThat(s.unmarshal(json, WatchEvent.class).getObject()).isInstanceOf(Workload.class);
  }

  /** A serialization whose trees are built by {@code nodes}; with or without the decoder. */
  private static KubernetesSerialization serialization(CountingNodes nodes, boolean decoder) {
    AtomicReference<KubernetesSerialization> built = new AtomicReference<>();
    ObjectMapper mapper = new ObjectMapper();
    if (decoder) {
      mapper.registerModule(
          WatchEventDecoder.module((v, k) -> built.get().getRegisteredKubernetesResource(v, k)));
    }
    built.set(new KubernetesSerialization(mapper, true));
    mapper.setNodeFactory(nodes);
    return Clients.withKinds(built.get());
  }

  private static final class CountingNodes extends JsonNodeFactory {
    final AtomicInteger objects = new AtomicInteger();

    @Override
    public ObjectNode objectNode() {
      objects.incrementAndGet();
      return super.objectNode();
    }
  }
}
