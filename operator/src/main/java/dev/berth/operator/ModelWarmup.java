package dev.berth.operator;

import dev.berth.api.v1beta1.BerthKinds;
import dev.berth.operator.jobset.JobSet;
import dev.berth.operator.provisioning.ProvisioningRequest;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
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
        List.of(
            Pod.class,
            Node.class,
            Job.class,
            Namespace.class,
            Lease.class,
            JobSet.class,
            ProvisioningRequest.class));
    return kinds;
  }

  /** Parses an empty object of each kind with the client's own serialization. */
  static void warm(KubernetesClient client) {
    long start = System.nanoTime();
    KubernetesSerialization serialization = client.getKubernetesSerialization();
    for (Class<?> kind : kinds()) {
      // An empty object is enough: Jackson resolves the deserializers of every property type,
      // recursively, when it builds the one of the root type.
      serialization.unmarshal("{}", kind);
    }
    log.info(
        "JSON readers of {} kinds built in {} ms",
        kinds().size(),
        (System.nanoTime() - start) / 1_000_000);
  }
}
