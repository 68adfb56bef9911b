package dev.berth.webhook.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.webhook.validation.FieldError;
import dev.berth.webhook.validation.ManagedJobPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Validates a Job or JobSet: the object rules (ratcheted on update), plus the request rules of
 * {@link ManagedJobPolicy} (never ratcheted). {@code onCreate}/{@code onUpdate} take the JSON so
 * Jobs and JobSets share this handler.
 */
public final class ManagedJobHandler implements AdmissionHandler {
  private final String kind;
  private final Function<JsonNode, List<FieldError>> onCreate;
  private final BiFunction<JsonNode, JsonNode, List<FieldError>> onUpdate;
  private final ManagedJobPolicy policy;

  public ManagedJobHandler(
      String kind,
      Function<JsonNode, List<FieldError>> onCreate,
      BiFunction<JsonNode, JsonNode, List<FieldError>> onUpdate,
      ManagedJobPolicy policy) {
    this.kind = kind;
    this.onCreate = onCreate;
    this.onUpdate = onUpdate;
    this.policy = policy;
  }

  @Override
  public AdmissionAnswer handle(AdmissionCall call) {
    if (call.subResource() != null || call.object() == null) {
      return AdmissionAnswer.ALLOW;
    }
    List<FieldError> errors = new ArrayList<>();
    if (call.isCreate()) {
      errors.addAll(onCreate.apply(call.object()));
      errors.addAll(policy.onCreate(kind, call.namespace(), call.object(), call.username()));
    } else if (call.isUpdate() && call.oldObject() != null) {
      errors.addAll(
          Ratchet.newErrors(
              onUpdate.apply(call.oldObject(), call.object()), onCreate.apply(call.oldObject())));
      errors.addAll(
          policy.onUpdate(
              kind, call.namespace(), call.oldObject(), call.object(), call.username()));
    }
    return AdmissionAnswer.of(errors);
  }
}
