package dev.berth.e2e.chart;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.List;

/**
 * The chart's ClusterRoles, rendered by the real helm binary: suites outside this package bind test
 * users to exactly what a cluster would get from {@code helm install}, never to roles written by
 * hand.
 */
public final class ChartRoles {
  private ChartRoles() {}

  /** Every ClusterRole of {@code helm template <release> helm/berth}, with default values. */
  public static List<GenericKubernetesResource> clusterRoles(String release, String namespace) {
    return Manifests.ofKind(Manifests.parse(HelmCli.template(release, namespace)), "ClusterRole");
  }

  /** The chart's RBAC objects of {@code kind} rendered with extra helm arguments (values). */
  public static List<GenericKubernetesResource> rendered(
      String kind, String release, String namespace, String... helmArgs) {
    return Manifests.ofKind(Manifests.parse(HelmCli.template(release, namespace, helmArgs)), kind);
  }
}
