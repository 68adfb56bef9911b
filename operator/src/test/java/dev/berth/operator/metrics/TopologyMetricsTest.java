package dev.berth.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.model.ResourceFlavor;
import dev.berth.engine.topology.Topology;
import dev.berth.engine.topology.TopologyNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopologyMetricsTest {
  private static final String GPU = "nvidia.com/gpu";

  private static TopologyNode node(String rack, String host) {
    return TopologyNode.named(host)
        .label("rack", rack)
        .label(Topology.HOSTNAME, host)
        .allocatable(GPU, 8)
        .allocatable("cpu", "64")
        .allocatable("pods", "110")
        .build();
  }

  private static double gauge(SimpleMeterRegistry registry, String name, String... tags) {
    return registry.get(name).tags(tags).gauge().value();
  }

  @Test
  void freeCapacityPerDomainAndTheLargestGangPerLevelFollowTheNodesAndPods() {
    AdmissionEngine engine = new AdmissionEngine();
    engine.upsertTopology(Topology.of("dc", "rack", Topology.HOSTNAME));
    engine.upsertResourceFlavor(new ResourceFlavor("h100", Map.of(), List.of(), List.of(), "dc"));
    engine.upsertNode(node("r1", "n1"));
    engine.upsertNode(node("r1", "n2"));
    engine.upsertNode(node("r2", "n3"));
    engine.upsertBoundPod("p", "n1", Map.of(GPU, 3L));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    TopologyMetrics metrics = new TopologyMetrics(registry, engine);

    metrics.refresh();
    assertThat(
            gauge(
                registry,
                "berth_topology_domain_free",
                "flavor",
                "h100",
                "level",
                "rack",
                "domain",
                "r1",
                "resource",
                GPU))
        .isEqualTo(13.0);
    assertThat(
            gauge(
                registry,
                "berth_topology_domain_free",
                "flavor",
                "h100",
                "level",
                Topology.HOSTNAME,
                "domain",
                "r1/n1",
                "resource",
                GPU))
        .isEqualTo(5.0);
    assertThat(
            gauge(
                registry,
                "berth_topology_domain_free",
                "flavor",
                "h100",
                "level",
                "rack",
                "domain",
                "r2",
                "resource",
                "cpu"))
        .isEqualTo(64.0);
    assertThat(
            gauge(
                registry,
                "berth_topology_largest_gang_pods",
                "flavor",
                "h100",
                "level",
                "rack",
                "resource",
                GPU))
        .isEqualTo(13.0);
    assertThat(
            gauge(
                registry,
                "berth_topology_largest_gang_pods",
                "flavor",
                "h100",
                "level",
                Topology.HOSTNAME,
                "resource",
                GPU))
        .isEqualTo(8.0);
    assertThat(registry.find("berth_topology_domain_free").tag("resource", "pods").gauges())
        .as("only cpu, memory and extended resources")
        .isEmpty();

    engine.deleteNode("n3");
    metrics.refresh();
    assertThat(registry.find("berth_topology_domain_free").tag("domain", "r2").gauges())
        .as("a domain that is gone leaves no series")
        .isEmpty();
    assertThat(
            gauge(
                registry,
                "berth_topology_largest_gang_pods",
                "flavor",
                "h100",
                "level",
                Topology.HOSTNAME,
                "resource",
                GPU))
        .isEqualTo(8.0);
  }
}
