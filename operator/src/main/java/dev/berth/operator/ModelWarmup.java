package dev.berth.operator;

import dev.berth.api.v1beta1.BerthKinds;
import dev.berth.operator.provisioning.ProvisioningRequest;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the JSON readers of every kind the operator lists and watches, once, on the starting
 * thread, before any informer starts.
 *
 * <p>Why: the informers' list and watch responses are parsed on the HTTP client's Vert.x event-loop
 * threads, and the first parse of a kind builds its whole Jackson deserializer graph (a Pod's spans
 * hundreds of classes). On a busy node under the chart's CPU limit that took long enough (event
 * loops blocked 5 to 14 s, seen in ImageInContainerIT at load 8) that the other requests queued on
 * those loops ran into the client's 10 s request and connection timeouts; the initial LISTs failed
 * and the operator stopped before it was ever ready. Built here, the event loops only parse.
 */
final class ModelWarmup {
  private static final Logger log = LoggerFactory.getLogger(ModelWarmup.class);

  private ModelWarmup() {}

  /** The kinds the reconcilers and the admission loop read from the API server. */
  static List<Class<?>> kinds() {
    List<Class<?>> kinds = new ArrayList<>(BerthKinds.ALL);
    kinds.addAll(
        List.of(Pod.class, Node.class, Namespace.class, Lease.class, ProvisioningRequest.class));
    // Every workload kind of the registry (a JobSet's child Jobs are batch/v1 Jobs, listed there).
    Integrations.all().forEach(kind -> kinds.add(kind.type()));
    return kinds;
  }

  /**
   * Builds the TLS stack's first client engine: the JDK's TLS classes, the security providers they
   * load (BouncyCastle's set-up alone blocked an event loop for 5 s under load, after the readers
   * were warmed) and Netty's JDK TLS defaults, which the first connection to the API server would
   * otherwise initialise on an event loop. With BoringSSL ({@link
   * dev.berth.operator.kube.NativeTls}) its library is loaded and its context built when the client
   * is built, on the starting thread too; the JDK's classes are still what Netty's wrapper around
   * that context and the JDK's trust manager use.
   */
  static void warmTls() {
    try {
      SSLContext.getDefault().createSSLEngine();
      Class.forName("io.netty.handler.ssl.JdkSslContext", true, ModelWarmup.class.getClassLoader());
    } catch (NoSuchAlgorithmException | ClassNotFoundException e) {
      log.debug("TLS warm-up skipped: {}", e.toString());
    }
  }

  /** Parses an empty object of each kind with the client's own serialization, then warms TLS. */
  static void warm(KubernetesClient client) {
    long start = System.nanoTime();
    warmTls();
    KubernetesSerialization serialization = client.getKubernetesSerialization();
    for (Class<?> kind : kinds()) {
      // An empty object is enough: Jackson resolves the deserializers of every property type,
      // recursively, when it builds the one of the root type.
      serialization.unmarshal("{}", kind);
    }
    log.info(
        "TLS and the JSON readers of {} kinds built in {} ms",
        kinds().size(),
        (System.nanoTime() - start) / 1_000_000);
  }
}
