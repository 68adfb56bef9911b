package dev.berth.webhook.server;

import dev.berth.webhook.validation.PodGateGuard;
import dev.berth.webhook.validation.PodQueueRule;

/**
 * Validates pods. On create, the queue rule ({@link PodQueueRule}: no pod holds covered resources
 * of a managed namespace unless it is queued itself or a managed Job's); on update, the topology
 * and admission gates and the placement behind them are the operator's ({@link PodGateGuard}). The
 * chart registers these as separate webhooks on this one path, each with its own selectors.
 */
public final class PodGateHandler implements AdmissionHandler {
  private final PodGateGuard guard;
  private final PodQueueRule queueRule;

  public PodGateHandler(PodGateGuard guard, PodQueueRule queueRule) {
    this.guard = guard;
    this.queueRule = queueRule;
  }

  @Override
  public AdmissionAnswer handle(AdmissionCall call) {
    if (call.subResource() != null || call.object() == null) {
      return AdmissionAnswer.ALLOW;
    }
    if (call.isCreate()) {
      return AdmissionAnswer.of(
          queueRule.onCreate(call.namespace(), call.object(), call.username()));
    }
    if (!call.isUpdate() || call.oldObject() == null) {
      return AdmissionAnswer.ALLOW;
    }
    return AdmissionAnswer.of(guard.checkUpdate(call.oldObject(), call.object(), call.username()));
  }
}
