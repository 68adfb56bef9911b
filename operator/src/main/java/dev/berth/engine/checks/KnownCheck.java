package dev.berth.engine.checks;

/**
 * An AdmissionCheck as the cluster has it: its controller and whether that controller marked it
 * Active (with its message when not).
 */
public record KnownCheck(String name, String controllerName, boolean active, String message) {}
