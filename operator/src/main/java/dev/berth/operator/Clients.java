package dev.berth.operator;

import dev.berth.api.v1beta1.BerthKinds;
import dev.berth.operator.integration.trainjob.ClusterTrainingRuntime;
import dev.berth.operator.integration.trainjob.TrainingRuntime;
import dev.berth.operator.kube.ClientStack;
import dev.berth.operator.kube.NativeTls;
import dev.berth.operator.kube.SharedVersions;
import dev.berth.operator.kube.WatchDeadlines;
import dev.berth.operator.kube.WatchSilence;
import dev.berth.operator.provisioning.ProvisioningRequest;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Duration;

/**
 * The one way the operator builds a Kubernetes client: fabric8's, bent as {@link ClientStack}
 * describes (its decoding, its HTTP client, TLS, token refresh and watch deadlines), with the
 * custom kinds the operator reads registered ({@link #serialization()}) and its settings from the
 * configuration ({@code clientConnection.watchSilence}, {@code clientConnection.nativeTls}). The
 * kinds are added here rather than in the {@code kube} package, which depends on no other package
 * of the operator.
 */
public final class Clients {
  private Clients() {}

  /**
   * The client's decoding ({@link ClientStack#serialization()}), the operator's kinds registered.
   */
  public static KubernetesSerialization serialization() {
    return withKinds(ClientStack.serialization());
  }

  /** The versions a client built here shares ({@link ClientStack#versions}). */
  public static SharedVersions versions(KubernetesClient client) {
    return versions(client.getKubernetesSerialization());
  }

  /** The versions {@code serialization}'s watches look up (new ones if it was not built here). */
  public static SharedVersions versions(KubernetesSerialization serialization) {
    return ClientStack.versions(serialization);
  }

  /** {@code serialization}, with the custom kinds the operator watches registered. */
  public static KubernetesSerialization withKinds(KubernetesSerialization serialization) {
    BerthKinds.ALL.forEach(serialization::registerKubernetesResource);
    // The workload kinds served by a CRD (fabric8 knows the built-in ones).
    Integrations.all().stream()
        .filter(kind -> kind.framework().crd().isPresent())
        .forEach(kind -> serialization.registerKubernetesResource(kind.type()));
    serialization.registerKubernetesResource(ProvisioningRequest.class);
    // The runtimes a TrainJob's pod sets come from, read by its reconciler's informers.
    serialization.registerKubernetesResource(ClusterTrainingRuntime.class);
    serialization.registerKubernetesResource(TrainingRuntime.class);
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
    return ClientStack.builder(serialization(), handshake, silence, nativeTls);
  }
}
