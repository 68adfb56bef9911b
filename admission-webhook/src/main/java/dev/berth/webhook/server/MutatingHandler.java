package dev.berth.webhook.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.webhook.mutation.Defaulter;
import io.fabric8.zjsonpatch.JsonDiff;
import java.util.Set;

/**
 * Applies a defaulter to a copy of the object and answers with the JSON Patch between the two: the
 * patch holds exactly the defaults, nothing the user wrote is rewritten.
 */
public final class MutatingHandler implements AdmissionHandler {
  private final Defaulter defaulter;
  private final Set<String> operations;

  public MutatingHandler(Defaulter defaulter, Set<String> operations) {
    this.defaulter = defaulter;
    this.operations = operations;
  }

  @Override
  public AdmissionAnswer handle(AdmissionCall call) {
    if (call.subResource() != null
        || !(call.object() instanceof ObjectNode original)
        || call.operation() == null
        || !operations.contains(call.operation())) {
      return AdmissionAnswer.ALLOW;
    }
    ObjectNode mutated = original.deepCopy();
    defaulter.apply(mutated, call.namespace());
    JsonNode patch = JsonDiff.asJson(original, mutated);
    if (patch.isEmpty()) {
      return AdmissionAnswer.ALLOW;
    }
    return new AdmissionAnswer.Allow(patch.toString());
  }
}
