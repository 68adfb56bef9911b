package dev.berth.webhook.server;

import dev.berth.webhook.validation.FieldError;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;

/** Runs one kind's validator on CREATE and UPDATE; other operations are not its business. */
public final class ValidatingHandler<T> implements AdmissionHandler {
  private final Class<T> type;
  private final Function<T, List<FieldError>> onCreate;
  private final BiFunction<T, T, List<FieldError>> onUpdate;

  public ValidatingHandler(
      Class<T> type,
      Function<T, List<FieldError>> onCreate,
      BiFunction<T, T, List<FieldError>> onUpdate) {
    this.type = type;
    this.onCreate = onCreate;
    this.onUpdate = onUpdate;
  }

  @Override
  public AdmissionAnswer handle(AdmissionCall call) {
    if (call.subResource() != null || call.object() == null) {
      return AdmissionAnswer.ALLOW;
    }
    try {
      if (call.isCreate()) {
        return AdmissionAnswer.of(onCreate.apply(TypedDecoder.decode(call.object(), type)));
      }
      if (call.isUpdate() && call.oldObject() != null) {
        T old = TypedDecoder.decode(call.oldObject(), type);
        List<FieldError> errors = onUpdate.apply(old, TypedDecoder.decode(call.object(), type));
        return AdmissionAnswer.of(Ratchet.newErrors(errors, onCreate.apply(old)));
      }
      return AdmissionAnswer.ALLOW;
    } catch (TypedDecoder.DecodeFailure e) {
      return new AdmissionAnswer.Invalid(List.of(e.error));
    }
  }
}
