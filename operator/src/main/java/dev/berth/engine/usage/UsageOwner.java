package dev.berth.engine.usage;

/** Who a workload's usage is billed to; {@code costCentre} is "" when none is set. */
public record UsageOwner(
    String namespace, String localQueue, String clusterQueue, String costCentre) {}
