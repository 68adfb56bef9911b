package dev.berth.webhook.server;

/** Decides one admission request. Implementations are pure apart from cached lookups. */
@FunctionalInterface
public interface AdmissionHandler {
  AdmissionAnswer handle(AdmissionCall call);
}
