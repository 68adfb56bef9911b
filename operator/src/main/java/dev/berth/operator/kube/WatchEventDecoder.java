package dev.berth.operator.kube;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonParserSequence;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.WatchEvent;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/**
 * Decodes a watch event's object in one pass, straight into the class its apiVersion and kind name.
 * fabric8 reads the object into a JSON tree first, to learn its kind, then reads the tree into the
 * object: two passes over every event of every watch (a fifth of a Workload event's decoding,
 * WatchEventDecodeBenchmark in docs/benchmarks.md). The API server writes apiVersion and kind ahead
 * of the rest (Go sorts a custom resource's keys; built-in types declare them first), so they are
 * read as they come and kept in a small buffer, and the object is decoded from that buffer followed
 * by the rest of the stream.
 *
 * <p>An object that does not start with both, or whose kind has no class, is decoded exactly as
 * fabric8 decodes it (its {@code KubernetesDeserializer}: a registered class, or a
 * GenericKubernetesResource).
 */
public final class WatchEventDecoder extends StdDeserializer<WatchEvent> {
  private final BiFunction<String, String, Class<? extends KubernetesResource>> classes;
  private final Known known;
  private final boolean skipManagedFields;
  private final Map<Class<?>, JsonDeserializer<Object>> deserializers = new ConcurrentHashMap<>();

  /** The instance already held of an object's version, or null ({@link SharedVersions#known}). */
  @FunctionalInterface
  public interface Known {
    KubernetesResource find(Class<?> type, String uid, String resourceVersion);
  }

  /**
   * @param classes the class registered for an apiVersion and kind, or null (fabric8's
   *     registrations: {@code KubernetesSerialization.getRegisteredKubernetesResource})
   * @param known the versions already held: an object whose kind, uid and resourceVersion name one
   *     is not decoded again, the held instance is the event's object
   * @param skipManagedFields the mapper skips metadata.managedFields ({@link SkipManagedFields}):
   *     they are not copied while the metadata is read for its uid and version
   */
  public WatchEventDecoder(
      BiFunction<String, String, Class<? extends KubernetesResource>> classes,
      Known known,
      boolean skipManagedFields) {
    super(WatchEvent.class);
    this.classes = classes;
    this.known = known;
    this.skipManagedFields = skipManagedFields;
  }

  /** A module that decodes WatchEvents this way, every object decoded. */
  public static SimpleModule module(
      BiFunction<String, String, Class<? extends KubernetesResource>> classes) {
    return module(classes, (type, uid, version) -> null, false);
  }

  /**
   * A module that decodes WatchEvents this way, a version already held not decoded again; with
   * {@code skipManagedFields} for a mapper that skips them ({@link SkipManagedFields}), they are
   * stepped over as the metadata is read, not copied.
   */
  public static SimpleModule module(
      BiFunction<String, String, Class<? extends KubernetesResource>> classes,
      Known known,
      boolean skipManagedFields) {
    return new SimpleModule("berth-watch-events")
        .addDeserializer(
            WatchEvent.class, new WatchEventDecoder(classes, known, skipManagedFields));
  }

  @Override
  public WatchEvent deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
    if (!p.isExpectedStartObjectToken()) {
      return (WatchEvent) ctxt.handleUnexpectedToken(WatchEvent.class, p);
    }
    WatchEvent event = new WatchEvent();
    for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
      String name = p.currentName();
      p.nextToken();
      if (p.currentToken() == JsonToken.VALUE_NULL) {
        continue; // left unset, as null
      }
      switch (name) {
        case "type" -> event.setType(p.getValueAsString());
        case "object" -> event.setObject(object(p, ctxt));
        default -> event.setAdditionalProperty(name, ctxt.readValue(p, Object.class));
      }
    }
    return event;
  }

  /** The object at the parser's current token, which is left on the object's last token. */
  private KubernetesResource object(JsonParser p, DeserializationContext ctxt) throws IOException {
    if (p.currentToken() != JsonToken.START_OBJECT) {
      return ctxt.readValue(p, KubernetesResource.class);
    }
    TokenBuffer head = ctxt.bufferForInputBuffering(p);
    head.writeStartObject();
    String apiVersion = null;
    String kind = null;
    JsonToken t = p.nextToken();
    while (t == JsonToken.FIELD_NAME && (apiVersion == null || kind == null)) {
      String name = p.currentName();
      boolean isApiVersion = "apiVersion".equals(name) && apiVersion == null;
      boolean isKind = "kind".equals(name) && kind == null;
      if (!isApiVersion && !isKind) {
        break;
      }
      head.writeFieldName(name);
      if (p.nextToken() != JsonToken.VALUE_STRING) {
        head.copyCurrentStructure(p); // not a kind that names a class: fabric8 decides
        t = p.nextToken();
        break;
      }
      String value = p.getText();
      head.writeString(value);
      if (isApiVersion) {
        apiVersion = value;
      } else {
        kind = value;
      }
      t = p.nextToken();
    }
    Class<? extends KubernetesResource> type =
        apiVersion != null && kind != null ? classes.apply(apiVersion, kind) : null;
    if (type != null && t == JsonToken.FIELD_NAME && "metadata".equals(p.currentName())) {
      head.writeFieldName("metadata");
      String[] identity = new String[2];
      if (p.nextToken() == JsonToken.START_OBJECT) {
        metadata(p, head, identity);
      } else {
        head.copyCurrentStructure(p);
      }
      t = p.nextToken();
      KubernetesResource held =
          identity[0] != null && identity[1] != null
              ? known.find(type, identity[0], identity[1])
              : null;
      if (held != null) {
        // That version is held already (the reply to the operator's own write, or another
        // watch's event): the rest of the object is what it holds.
        while (t == JsonToken.FIELD_NAME) {
          p.nextToken();
          p.skipChildren();
          t = p.nextToken();
        }
        return held;
      }
    }
    // The buffer, then the stream from its current token (the first one not in the buffer).
    JsonParser whole = JsonParserSequence.createFlattened(true, head.asParser(p), p);
    whole.nextToken();
    if (type == null) {
      return ctxt.readValue(whole, KubernetesResource.class);
    }
    return (KubernetesResource) deserializer(type, ctxt).deserialize(whole, ctxt);
  }

  /**
   * Copies the metadata object at the parser (its start token current) into {@code head}, leaving
   * the parser on its end token; its uid and resourceVersion, when they are strings, into {@code
   * identity}.
   */
  private void metadata(JsonParser p, TokenBuffer head, String[] identity) throws IOException {
    head.writeStartObject();
    for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      if (skipManagedFields && "managedFields".equals(name)) {
        p.skipChildren(); // not copied: the mapper drops them anyway
        continue;
      }
      head.writeFieldName(name);
      if (value == JsonToken.VALUE_STRING) {
        if ("uid".equals(name)) {
          identity[0] = p.getText();
        } else if ("resourceVersion".equals(name)) {
          identity[1] = p.getText();
        }
      }
      head.copyCurrentStructure(p);
    }
    head.writeEndObject();
  }

  /**
   * The class's deserializer, looked up once: {@code ctxt.readValue} looks it up on every call, and
   * that lookup (the type's annotations introspected again) was a fifth of this decoder's time in
   * the baseline benchmark's profile. This decoder belongs to one mapper, as do they.
   */
  private JsonDeserializer<Object> deserializer(Class<?> type, DeserializationContext ctxt)
      throws IOException {
    JsonDeserializer<Object> d = deserializers.get(type);
    if (d == null) {
      d = ctxt.findRootValueDeserializer(ctxt.constructType(type));
      deserializers.put(type, d);
    }
    return d;
  }

  @Override
  public boolean isCachable() {
    return true;
  }
}
