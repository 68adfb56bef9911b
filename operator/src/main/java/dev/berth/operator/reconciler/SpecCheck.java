package dev.berth.operator.reconciler;

import dev.berth.operator.events.EventRecorder;
import dev.berth.webhook.validation.FieldError;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator checks what it reads with the webhook's validators, so an object stored while the
 * webhook was down (or installed around it) is never fed to the engine. The engine keeps deciding
 * with the last valid version; a Warning event says what is wrong, field by field.
 */
public final class SpecCheck {
  private static final Logger log = LoggerFactory.getLogger(SpecCheck.class);

  private final EventRecorder events;

  public SpecCheck(EventRecorder events) {
    this.events = events;
  }

  public boolean accepts(HasMetadata object, List<FieldError> errors) {
    if (errors.isEmpty()) {
      return true;
    }
    String message =
        errors.stream().map(e -> e.path() + ": " + e.message()).collect(Collectors.joining("; "));
    log.warn(
        "{} {} is invalid and ignored: {}",
        object.getKind(),
        object.getMetadata().getName(),
        message);
    events.warning(object, "InvalidSpec", "Ignored until fixed: " + message);
    return false;
  }
}
