package dev.berth.operator.kube;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ObjectMeta;

/**
 * The operator client's decoding skips {@code metadata.managedFields} as it reads: every object the
 * client reads (a watch event, a page of a list, the reply to a write, a GET) arrives without them.
 * Berth never reads managedFields ({@link LeanItemStore} already dropped them from every cached
 * object, but only after they had been decoded), and they are most of an object's metadata: one
 * entry per writer, each with the nested set of fields it owns, every key and value a string. On a
 * Workload of the baseline benchmark that is about half the watch event, decoded into maps of maps
 * and interned string by string, only to be dropped; skipped, the parser steps over them without
 * building anything.
 *
 * <p>Writes are unaffected: the API server keeps the live object's managedFields on any write that
 * omits them (an update based on a read object, as before on cached ones), and a server-side apply
 * must not carry them. Encoding is unchanged ({@code allowGetters}): an object that does have
 * managedFields is written with them.
 */
@JsonIgnoreProperties(
    value = {"managedFields"},
    allowGetters = true)
public abstract class SkipManagedFields {
  private SkipManagedFields() {}

  /** {@code mapper}, decoding ObjectMeta without managedFields. */
  public static ObjectMapper on(ObjectMapper mapper) {
    return mapper.addMixIn(ObjectMeta.class, SkipManagedFields.class);
  }
}
