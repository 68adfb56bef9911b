package dev.berth.webhook.server;

import dev.berth.webhook.validation.CronJobQueueRule;

/** Validates CronJobs: their Jobs must land in a queue ({@link CronJobQueueRule}). */
public final class CronJobHandler implements AdmissionHandler {
  private final CronJobQueueRule rule;

  public CronJobHandler(CronJobQueueRule rule) {
    this.rule = rule;
  }

  @Override
  public AdmissionAnswer handle(AdmissionCall call) {
    if (call.subResource() != null || call.object() == null) {
      return AdmissionAnswer.ALLOW;
    }
    if (call.isCreate()) {
      return AdmissionAnswer.of(rule.onCreate(call.namespace(), call.object()));
    }
    if (call.isUpdate() && call.oldObject() != null) {
      return AdmissionAnswer.of(rule.onUpdate(call.namespace(), call.oldObject(), call.object()));
    }
    return AdmissionAnswer.ALLOW;
  }
}
