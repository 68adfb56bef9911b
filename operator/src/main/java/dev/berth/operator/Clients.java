package dev.berth.operator;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.berth.api.v1beta1.BerthKinds;
import dev.berth.operator.informers.InternedStrings;
import dev.berth.operator.informers.SharedVersions;
import dev.berth.operator.informers.SkipManagedFields;
import dev.berth.operator.informers.WatchEventDecoder;
import dev.berth.operator.jobset.JobSet;
import dev.berth.operator.provisioning.ProvisioningRequest;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The one way the operator builds a Kubernetes client. Its jar carries two HTTP client factories
 * (Vert.x, fabric8's default, and the JDK one that local mode's embedded API server brings), and
 * with both on the classpath fabric8 picks one at random on each start: the operator names it. Its
 * WebSocket watches get two deadlines, so that no informer waits for ever on a watch that was lost:
 * one on the upgrade ({@link WatchDeadlines}) and one on silence once it is open ({@link
 * WatchSilence}, {@code clientConnection.watchSilence}). What it reads is decoded with its strings
 * interned ({@link InternedStrings}): the informers' caches hold one copy of each repeated value.
 * The custom kinds it reads are registered with that decoding ({@link #serialization()}). fabric8's
 * token refresh runs at most once a minute ({@link TokenRefreshBound}).
 */
public final class Clients {
  private Clients() {}

  /**
   * The client's decoding: strings interned ({@link InternedStrings}), managedFields skipped
   * ({@link SkipManagedFields}), watch events decoded in one pass ({@link WatchEventDecoder}), and
   * the custom kinds the operator watches registered. A watch event names its object's kind only
   * inside the object, so its object is decoded by apiVersion and kind: an unregistered kind is
   * decoded as a GenericKubernetesResource (maps of maps) and then converted to the watched class
   * through a second Jackson pass. That conversion of every Workload event was 7 % of the
   * operator's CPU on the 15,000-workload benchmark (docs/benchmarks.md).
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
    return withKinds(built.get());
  }

  /**
   * The object versions a client built here hands out to whoever keeps them (the operator's
   * informers and its admission state, {@link SharedVersions}); its watches do not decode a version
   * that is held already: the echo of the operator's own status writes, and the second Workload
   * watch's copy of each event of a Job's or JobSet's Workload (the Workload reconciler's informer
   * and the owner's reconciler's, which selects the Workloads of its kind, both watch it). A client
   * built otherwise gets versions of its own.
   */
  public static SharedVersions versions(KubernetesClient client) {
    return versions(client.getKubernetesSerialization());
  }

  /** The versions {@code serialization}'s watches look up (new ones if it was not built here). */
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

  /** {@code serialization}, with the custom kinds the operator watches registered. */
  public static KubernetesSerialization withKinds(KubernetesSerialization serialization) {
    BerthKinds.ALL.forEach(serialization::registerKubernetesResource);
    serialization.registerKubernetesResource(JobSet.class);
    serialization.registerKubernetesResource(ProvisioningRequest.class);
    return serialization;
  }

  /** With the default silence bound and TLS engine (the configuration's defaults). */
  public static KubernetesClientBuilder builder() {
    return builder(WatchDeadlines.HANDSHAKE, WatchSilence.DEFAULT);
  }

  /** With the configured silence bound ({@code clientConnection.watchSilence}) and TLS engine. */
  public static KubernetesClientBuilder builder(Duration silence, boolean nativeTls) {
    return builder(WatchDeadlines.HANDSHAKE, silence, nativeTls);
  }

  /** With another watch handshake deadline (tests, which cannot wait that long). */
  public static KubernetesClientBuilder builder(Duration handshake) {
    return builder(handshake, WatchSilence.DEFAULT);
  }

  /** With other watch deadlines: the upgrade's, and silence's once open (zero: none). */
  public static KubernetesClientBuilder builder(Duration handshake, Duration silence) {
    return builder(handshake, silence, true);
  }

  /**
   * With other watch deadlines, and TLS by BoringSSL when {@code nativeTls} (and its library
   * loads), otherwise by the JDK's engine ({@link NativeTls}; tests compare the two).
   */
  public static KubernetesClientBuilder builder(
      Duration handshake, Duration silence, boolean nativeTls) {
    WatchDeadlines deadlines = new WatchDeadlines(handshake);
    return new KubernetesClientBuilder()
        .withKubernetesSerialization(serialization())
        .withHttpClientFactory(
            TokenRefreshBound.factory(
                SilenceGuardedHttpClient.factory(
                    NativeTls.factory(nativeTls), new WatchSilence(silence))))
        .withHttpClientBuilderConsumer(
            http -> http.addOrReplaceInterceptor(WatchDeadlines.NAME, deadlines));
  }
}
