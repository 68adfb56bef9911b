package dev.berth.webhook.server;

import dev.berth.webhook.validation.TemplateQueueRule;

/**
 * Validates an owner of a template (CronJobs, Deployments): what it makes must land in a queue
 * ({@link TemplateQueueRule}).
 */
public final class TemplateQueueHandler implements AdmissionHandler {
  private final TemplateQueueRule rule;

  public TemplateQueueHandler(TemplateQueueRule rule) {
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
