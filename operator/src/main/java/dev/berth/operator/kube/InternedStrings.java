package dev.berth.operator.kube;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.deser.std.StringDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;

/**
 * The operator client's JSON decoding, with every string value interned as it is read: most of the
 * strings of a cached object repeat across objects (namespaces, queue and flavor names, label
 * values, condition types, statuses, reasons and messages, timestamps to the second, images,
 * resource names), and each decoded object carried its own copies. At 50,000 Workloads the live
 * heap was 472 MB, 145 MB of it strings, and the chart's 512 MiB heap spent its time collecting
 * (issue 20's large-scale load). Interned, a repeated value is one object however many Workloads
 * carry it; a unique one (a uid, a resourceVersion) costs a lookup in the JVM's string table and is
 * collected with its last holder as before. Field names were already shared by Jackson.
 */
public final class InternedStrings {
  private InternedStrings() {}

  /** fabric8's serialization (same configuration as its default), decoding strings interned. */
  public static KubernetesSerialization serialization() {
    return new KubernetesSerialization(new ObjectMapper().registerModule(module()), true);
  }

  /** The module that interns what it decodes, for a mapper of one's own. */
  public static SimpleModule module() {
    return new SimpleModule("berth-interned-strings")
        .addDeserializer(String.class, new Deserializer());
  }

  static final class Deserializer extends StdScalarDeserializer<String> {
    Deserializer() {
      super(String.class);
    }

    @Override
    public String deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      String value = StringDeserializer.instance.deserialize(p, ctxt);
      return value == null ? null : value.intern();
    }

    @Override
    public boolean isCachable() {
      return true;
    }
  }
}
