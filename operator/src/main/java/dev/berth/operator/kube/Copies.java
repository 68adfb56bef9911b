package dev.berth.operator.kube;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The Workload a status write starts from: the cached one's metadata copied, its status copied
 * deep, and its spec shared. The copy keeps the spec, as the stored object does (the API server
 * keeps the stored spec on a status write; the writers' own writes do not even send it, {@link
 * StatusWrite#statusOnly}), but nothing on the way changes it, so the copy of it that {@code
 * Serialization.clone} made of the whole object was work thrown away: the JSON copies of cached
 * Workloads were 7.6 % of the operator's CPU on the baseline load (issue 20's profile), and a GPU
 * job's pod templates are most of its Workload.
 *
 * <p>The spec stays the cached object's, so whoever changes a copy's spec changes the cache: only
 * status writes start here ({@link SharedVersions}: nothing changes a cached object in place).
 */
public final class StatusCopies {
  private StatusCopies() {}

  /** A copy to change the status of and write with {@code updateStatus}; the spec is shared. */
  public static Workload of(Workload cached) {
    Workload copy = new Workload();
    copy.setApiVersion(cached.getApiVersion());
    copy.setKind(cached.getKind());
    copy.setMetadata(new ObjectMetaBuilder(cached.getMetadata()).build());
    copy.setSpec(cached.getSpec());
    copy.setStatus(cached.getStatus() == null ? null : deepCopy(cached.getStatus()));
    return copy;
  }

  /**
   * A deep copy through fabric8's own mapping, as {@code Serialization.clone} makes it, but through
   * Jackson's token buffer instead of a JSON string: no characters written and parsed again (the
   * string copy was 3 % of the operator's CPU on the baseline load, two status copies a workload).
   */
  private static <T> T deepCopy(T value) {
    ObjectMapper mapper = Serialization.jsonMapper();
    try (TokenBuffer tokens = new TokenBuffer(mapper, false)) {
      mapper.writeValue(tokens, value);
      try (JsonParser parser = tokens.asParser()) {
        @SuppressWarnings("unchecked")
        Class<T> type = (Class<T>) value.getClass();
        return mapper.readValue(parser, type);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a token buffer does not fail
    }
  }
}
