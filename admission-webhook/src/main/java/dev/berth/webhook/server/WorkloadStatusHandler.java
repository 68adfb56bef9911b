package dev.berth.webhook.server;

import dev.berth.api.v1beta1.Workload;
import dev.berth.webhook.validation.RequestGuard;
import java.util.List;

/**
 * Guards writes to workloads/status: the admission is the operator's to write, a check's state its
 * controller's. Runs on a handler thread: the guard may ask the API server (SubjectAccessReview).
 */
public final class WorkloadStatusHandler implements AdmissionHandler {
  private final RequestGuard guard;

  public WorkloadStatusHandler(RequestGuard guard) {
    this.guard = guard;
  }

  @Override
  public AdmissionAnswer handle(AdmissionCall call) {
    if (!"status".equals(call.subResource())
        || !call.isUpdate()
        || call.object() == null
        || call.oldObject() == null) {
      return AdmissionAnswer.ALLOW;
    }
    try {
      Workload old = TypedDecoder.decode(call.oldObject(), Workload.class);
      Workload wl = TypedDecoder.decode(call.object(), Workload.class);
      return AdmissionAnswer.of(guard.checkWorkloadStatus(old, wl, call.user()));
    } catch (TypedDecoder.DecodeFailure e) {
      return new AdmissionAnswer.Invalid(List.of(e.error));
    }
  }
}
