package dev.berth.api.v1beta1;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.berth.api.crd.DateTime;
import dev.berth.api.crd.MaxLength;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/**
 * A status condition shaped as Kubernetes' metav1.Condition: the same required fields, formats and
 * limits, so that kubectl, {@code kubectl wait --for=condition} and every condition-reading tool
 * understand it. Bounded strings keep the CEL rules that read conditions within the API server's
 * cost budget.
 */
public class Condition {
  @Required
  @MaxLength(316)
  public String type;

  /** True, False or Unknown. */
  @Required
  @Pattern("^(True|False|Unknown)$")
  @MaxLength(7)
  public String status;

  /** CamelCase, as metav1.Condition: tools match on it. */
  @Required
  @Pattern("^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")
  @MaxLength(1024)
  public String reason;

  /** Present, and may be empty. */
  @Required
  @MaxLength(32768)
  public String message;

  @Required
  @DateTime
  @MaxLength(64)
  public String lastTransitionTime;

  @Min(0)
  public Long observedGeneration;

  public Condition() {}

  public Condition(String type, String status, String reason, String message) {
    this.type = type;
    this.status = status;
    this.reason = reason;
    this.message = message;
  }

  @JsonIgnore
  public boolean isTrue() {
    return "True".equals(status);
  }
}
