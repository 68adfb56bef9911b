package dev.berth.engine.usage;

/** What one podSet's pods together reserved of one resource in one flavor, canonical units. */
public record UsageRequest(String podSet, String flavor, String resource, long amount) {}
