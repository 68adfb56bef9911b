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
 * The one place the operator copies the objects it reads. The informers' objects are shared: every
 * reader of a cache gets the same instance, the admission loop keeps the informers' instance of
 * each Workload version ({@link SharedVersions}), a Workload is handed to its reconcile as cached
 * ({@link ReconcileCopies}), and the empty collections of cached objects are one shared immutable
 * instance ({@link SharedEmpties}). So nothing changes an object it read in place: whoever is about
 * to change one, to write it or to build another object from its parts, starts from a copy made
 * here. OperatorArchitectureTest holds that no class outside this package copies by other means.
 */
public final class Copies {
  private Copies() {}

  /**
   * A deep copy, through fabric8's own mapping ({@code Serialization.clone}): a fresh object with
   * collections of its own, to change and write.
   */
  public static <T> T deep(T object) {
    return Serialization.clone(object);
  }

  /**
   * The Workload a status write starts from: the cached one's metadata copied, its status copied
   * deep, and its spec shared. The copy keeps the spec, as the stored object does (the API server
   * keeps the stored spec on a status write; the writers' own writes do not even send it, {@link
   * StatusWrite#statusOnly}), but nothing on the way changes it, so the copy of it that {@link
   * #deep} made of the whole object was work thrown away: the JSON copies of cached Workloads were
   * 7.6 % of the operator's CPU on the baseline load (issue 20's profile), and a GPU job's pod
   * templates are most of its Workload.
   *
   * <p>The spec stays the cached object's, so whoever changes a copy's spec changes the cache: only
   * status writes start here.
   */
  public static Workload forStatus(Workload cached) {
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
