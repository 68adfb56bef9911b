package dev.berth.webhook.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.webhook.validation.FieldError;
import dev.berth.webhook.validation.JobView;
import dev.berth.webhook.validation.RequestGuard;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Validates a Job or JobSet: the object rules, plus who may start a managed one.
 * {@code onCreate}/{@code onUpdate} take the JSON so Jobs and JobSets share this handler.
 */
public final class ManagedJobHandler implements AdmissionHandler {
  private final String kind;
  private final Function<JsonNode, List<FieldError>> onCreate;
  private final BiFunction<JsonNode, JsonNode, List<FieldError>> onUpdate;
  private final RequestGuard guard;

  public ManagedJobHandler(
      String kind,
      Function<JsonNode, List<FieldError>> onCreate,
      BiFunction<JsonNode, JsonNode, List<FieldError>> onUpdate,
      RequestGuard guard) {
    this.kind = kind;
    this.onCreate = onCreate;
    this.onUpdate = onUpdate;
    this.guard = guard;
  }

  @Override
  public AdmissionAnswer handle(AdmissionCall call) {
    if (call.subResource() != null || call.object() == null) {
      return AdmissionAnswer.ALLOW;
    }
    List<FieldError> errors = new ArrayList<>();
    JobView job = JobView.of(call.object());
    if (call.isCreate()) {
      errors.addAll(onCreate.apply(call.object()));
      errors.addAll(guard.checkStart(null, job, kind, call.username()));
    } else if (call.isUpdate() && call.oldObject() != null) {
      errors.addAll(Ratchet.newErrors(onUpdate.apply(call.oldObject(), call.object()),
          onCreate.apply(call.oldObject())));
      errors.addAll(guard.checkStart(JobView.of(call.oldObject()), job, kind, call.username()));
    }
    return AdmissionAnswer.of(errors);
  }
}
