package dev.berth.api.v1beta1;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.berth.api.crd.MaxLength;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/**
 * A status condition with Kubernetes' metav1.Condition limits. Bounded strings keep the CEL rules
 * that read conditions within the API server's cost budget.
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

  @MaxLength(1024)
  public String reason;

  @MaxLength(32768)
  public String message;

  public String lastTransitionTime;

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
