package dev.berth.operator.kube;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * fabric8's client as Berth bends it: its decoding and its HTTP stack. The operator's kinds and
 * settings are added by {@code dev.berth.operator.Clients}, the one way the operator builds a
 * client.
 *
 * <p>The HTTP client is fabric8's Vert.x one, named (the operator's jar may carry the JDK one too,
 * and with both on the classpath fabric8 picks one at random on each start), with TLS by BoringSSL
 * where it loads ({@link NativeTls}), its token refresh held to once a minute ({@link
 * TokenRefreshBound}), and two deadlines on its WebSocket watches, so that no informer waits for
 * ever on a watch that was lost: one on the upgrade ({@link WatchDeadlines}) and one on silence
 * once it is open ({@link WatchSilence}).
 */
public final class ClientStack {
  private ClientStack() {}

  /**
   * The client's decoding: strings interned ({@link InternedStrings}), managedFields skipped
   * ({@link SkipManagedFields}), watch events decoded in one pass ({@link WatchEventDecoder}), no
   * kind registered yet. A watch event names its object's kind only inside the object, so its
   * object is decoded by apiVersion and kind: an unregistered kind is decoded as a
   * GenericKubernetesResource (maps of maps) and then converted to the watched class through a
   * second Jackson pass. That conversion of every Workload event was 7 % of the operator's CPU on
   * the 15,000-workload benchmark (docs/benchmarks.md): the kinds the operator watches are to be
   * registered with it.
   */
  public static KubernetesSerialization serialization() {
    AtomicReference<KubernetesSerialization> built = new AtomicReference<>();
    SharedVersions versions = new SharedVersions();
    ObjectMapper mapper =
        SkipManagedFields.on(new ObjectMapper())
            .registerModule(InternedStrings.module())
            .registerModule(
                WatchEventDecoder.module(
                    (apiVersion, kind) ->
                        built.get().getRegisteredKubernetesResource(apiVersion, kind),
                    versions::known,
                    true));
    built.set(new Decoding(mapper, versions));
    return built.get();
  }

  /**
   * The object versions a client built here hands out to whoever keeps them (the operator's
   * informers and its admission state, {@link SharedVersions}); its watches do not decode a version
   * that is held already: the echo of the operator's own status writes, and the second Workload
   * watch's copy of each event of a Job's or JobSet's Workload (the Workload reconciler's informer
   * and the owner's reconciler's, which selects the Workloads of its kind, both watch it). A
   * serialization made otherwise gets versions of its own.
   */
  public static SharedVersions versions(KubernetesSerialization serialization) {
    return serialization instanceof Decoding decoding ? decoding.versions : new SharedVersions();
  }

  /**
   * The operator's decoding, with the versions its watches look up, and a shorter way from a watch
   * message to its object. fabric8 hands every WebSocket message to {@code unmarshal(String,
   * Class)}, which wraps its bytes in two streams, reads them back to tell JSON from YAML and
   * builds a new Jackson reader (with its type resolved again) for each: a tenth of the watch
   * path's samples on the baseline load (issue 20's profile). A message that is JSON is read here
   * from its bytes by one reader per class; anything else goes the general way.
   */
  private static final class Decoding extends KubernetesSerialization {
    private final SharedVersions versions;
    private final ObjectMapper mapper;
    private final Map<Class<?>, ObjectReader> readers = new ConcurrentHashMap<>();

    Decoding(ObjectMapper mapper, SharedVersions versions) {
      super(mapper, true);
      this.mapper = mapper;
      this.versions = versions;
    }

    @Override
    public <T> T unmarshal(String str, Class<T> type) {
      if (!startsAsJson(str)) {
        return super.unmarshal(str, type);
      }
      try {
        return readers.computeIfAbsent(type, mapper::readerFor).readValue(str.getBytes(UTF_8));
      } catch (IOException e) {
        throw KubernetesClientException.launderThrowable(e);
      }
    }

    /** fabric8's own test: the first character after white space opens an object or array. */
    static boolean startsAsJson(String str) {
      for (int i = 0; i < str.length(); i++) {
        char c = str.charAt(i);
        if (!Character.isWhitespace(c)) {
          return c == '{' || c == '[';
        }
      }
      return false;
    }
  }

  /**
   * fabric8's builder with {@code serialization} and Berth's HTTP stack: watch deadlines (the
   * upgrade's, and silence's once open, zero: none), and TLS by BoringSSL when {@code nativeTls}
   * (and its library loads), otherwise by the JDK's engine ({@link NativeTls}; tests compare the
   * two).
   */
  public static KubernetesClientBuilder builder(
      KubernetesSerialization serialization,
      Duration handshake,
      Duration silence,
      boolean nativeTls) {
    WatchDeadlines deadlines = new WatchDeadlines(handshake);
    return new KubernetesClientBuilder()
        .withKubernetesSerialization(serialization)
        .withHttpClientFactory(
            TokenRefreshBound.factory(
                SilenceGuardedHttpClient.factory(
                    NativeTls.factory(nativeTls), new WatchSilence(silence))))
        .withHttpClientBuilderConsumer(
            http -> http.addOrReplaceInterceptor(WatchDeadlines.NAME, deadlines));
  }
}
