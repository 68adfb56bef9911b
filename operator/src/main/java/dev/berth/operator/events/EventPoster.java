package dev.berth.operator.events;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.berth.operator.kube.RawCreate;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Creates Events with a POST of JSON written here ({@link RawCreate}: through the client's own HTTP
 * client, its credentials, interceptors and retries), and reads of the reply only its status. A
 * create through fabric8's DSL builds the Event with builders, serializes it through the model, and
 * decodes the Event the API server sends back into a new object that nobody reads: one Event per
 * admission made that a share of the client's event-loop time on the baseline load (issue 20's
 * profile).
 */
final class EventPoster implements EventRecorder.Sink {
  private static final JsonFactory JSON = new JsonFactory();

  private final KubernetesClient client;

  EventPoster(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public void create(EventRecorder.Pending event) {
    RawCreate.post(client, json(event), "api/v1/namespaces", event.namespace(), "events");
  }

  /** The Event as the API server takes it (core/v1); absent fields are left out. */
  static byte[] json(EventRecorder.Pending event) {
    HasMetadata object = event.object();
    ByteArrayOutputStream out = new ByteArrayOutputStream(512);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("apiVersion", "v1");
      g.writeStringField("kind", "Event");
      g.writeObjectFieldStart("metadata");
      g.writeStringField("name", event.name());
      g.writeStringField("namespace", event.namespace());
      g.writeEndObject();
      g.writeObjectFieldStart("involvedObject");
      field(g, "apiVersion", object.getApiVersion());
      field(g, "kind", object.getKind());
      field(g, "name", object.getMetadata().getName());
      field(g, "namespace", object.getMetadata().getNamespace());
      field(g, "resourceVersion", object.getMetadata().getResourceVersion());
      field(g, "uid", object.getMetadata().getUid());
      g.writeEndObject();
      g.writeStringField("type", event.type());
      g.writeStringField("reason", event.reason());
      g.writeStringField("message", event.message());
      g.writeStringField("firstTimestamp", event.time());
      g.writeStringField("lastTimestamp", event.time());
      g.writeNumberField("count", 1);
      g.writeObjectFieldStart("source");
      g.writeStringField("component", EventRecorder.COMPONENT);
      g.writeEndObject();
      g.writeStringField("reportingComponent", EventRecorder.COMPONENT);
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return out.toByteArray();
  }

  private static void field(JsonGenerator g, String name, String value) throws IOException {
    if (value != null) {
      g.writeStringField(name, value);
    }
  }
}
