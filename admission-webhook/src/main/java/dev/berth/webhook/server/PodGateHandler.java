package dev.berth.webhook.server;

import dev.berth.webhook.validation.PodGateGuard;

/** Validates pod updates: the topology gate and the placement behind it are the operator's. */
public final class PodGateHandler implements AdmissionHandler {
  private final PodGateGuard guard;

  public PodGateHandler(PodGateGuard guard) {
    this.guard = guard;
  }

  @Override
  public AdmissionAnswer handle(AdmissionCall call) {
    if (call.subResource() != null
        || !call.isUpdate()
        || call.object() == null
        || call.oldObject() == null) {
      return AdmissionAnswer.ALLOW;
    }
    return AdmissionAnswer.of(guard.checkUpdate(call.oldObject(), call.object(), call.username()));
  }
}
