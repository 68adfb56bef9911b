package dev.berth.engine;

/**
 * Usage of one flavor-resource by a ClusterQueue, in canonical units (status.flavorsReservation).
 */
public record FlavorUsage(
    String flavor, String resource, long nominal, long total, long borrowed) {}
