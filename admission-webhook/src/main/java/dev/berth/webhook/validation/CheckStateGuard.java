package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus.AdmissionCheckState;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The state of an admission check in a Workload's status belongs to whoever is granted that check
 * (its controller): a user other than the operator who changes another check's entry is refused,
 * naming the entry's field.
 */
final class CheckStateGuard {
  private final CheckStateGrants grants;

  CheckStateGuard(CheckStateGrants grants) {
    this.grants = grants;
  }

  /**
   * Each listed check whose entry this request changes (state, message, podSetUpdates, any field)
   * must be granted to the user. An entry whose name was not listed before is the list's business
   * (the operator's, {@link RequestGuard}), not a state write.
   */
  List<FieldError> check(Workload old, Workload wl, RequestUser user) {
    List<AdmissionCheckState> after = entries(wl);
    List<AdmissionCheckState> before = entries(old);
    List<FieldError> errors = new ArrayList<>();
    for (int i = 0; i < after.size(); i++) {
      AdmissionCheckState entry = after.get(i);
      if (entry == null || entry.name == null) {
        continue;
      }
      AdmissionCheckState previous =
          before.stream()
              .filter(c -> c != null && entry.name.equals(c.name))
              .findFirst()
              .orElse(null);
      if (previous == null) {
        continue;
      }
      List<String> changed = changedFields(previous, entry);
      if (changed.isEmpty()) {
        continue;
      }
      // The state is what a forgery is after; name it when it changed, else the first field.
      FieldPath path =
          FieldPath.root("status")
              .child("admissionChecks")
              .index(i)
              .child(changed.contains("state") ? "state" : changed.get(0));
      String refusal = refusal(user, entry.name, changed);
      if (refusal != null) {
        errors.add(FieldError.forbidden(path, refusal));
      }
    }
    return errors;
  }

  /** Null when {@code user} may write {@code check}'s state; else why not. */
  private String refusal(RequestUser user, String check, List<String> changed) {
    String what =
        "user \""
            + user.username()
            + "\" may not write the state of admission check \""
            + check
            + "\" (changed: "
            + String.join(", ", changed)
            + ")";
    try {
      if (grants.mayWriteState(user, check)) {
        return null;
      }
    } catch (CheckStateGrants.Unavailable e) {
      return what
          + ": the API server could not confirm a grant ("
          + e.getMessage()
          + "), and the Berth webhook denies rather than guesses; retry";
    }
    return what
        + ": only the operator and users granted verb \""
        + CheckStateGrants.VERB
        + "\" on admissionchecks.berth.dev \""
        + check
        + "\" (its controller) may";
  }

  private static List<AdmissionCheckState> entries(Workload wl) {
    return wl.getStatus() == null || wl.getStatus().admissionChecks == null
        ? List.of()
        : wl.getStatus().admissionChecks;
  }

  /** The fields of an entry that differ, in the order they appear; the name is the same. */
  private static List<String> changedFields(AdmissionCheckState before, AdmissionCheckState after) {
    JsonNode a = Serialization.jsonMapper().valueToTree(before);
    JsonNode b = Serialization.jsonMapper().valueToTree(after);
    Set<String> fields = new LinkedHashSet<>();
    for (Iterator<String> it = b.fieldNames(); it.hasNext(); ) {
      fields.add(it.next());
    }
    for (Iterator<String> it = a.fieldNames(); it.hasNext(); ) {
      fields.add(it.next());
    }
    List<String> changed = new ArrayList<>();
    for (String field : fields) {
      if (!Objects.equals(missingAsNull(a.get(field)), missingAsNull(b.get(field)))) {
        changed.add(field);
      }
    }
    return changed;
  }

  private static JsonNode missingAsNull(JsonNode node) {
    return node == null || node.isNull() ? null : node;
  }
}
