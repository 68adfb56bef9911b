package dev.berth.engine.checks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Decides what the check states of a quota-reserved workload mean. Rejected outweighs Retry, which
 * outweighs Pending; the workload is admitted only when every check is Ready, so a check whose
 * controller never answers keeps it waiting (with a message saying which and why), never admitted
 * by default.
 */
public final class AdmissionCheckGate {
  private AdmissionCheckGate() {}

  /**
   * @param states the workload's entries, one per applicable check
   * @param known the AdmissionChecks that exist, by name
   */
  public static CheckVerdict decide(List<CheckStatus> states, Map<String, KnownCheck> known) {
    for (CheckStatus s : states) {
      if (s.state() == CheckState.Rejected) {
        return new CheckVerdict.Reject(
            s.name(),
            "AdmissionCheck " + s.name() + " rejected the workload" + suffix(s.message()));
      }
    }
    for (CheckStatus s : states) {
      if (s.state() == CheckState.Retry) {
        return new CheckVerdict.Retry(
            s.name(), "AdmissionCheck " + s.name() + " asked for a retry" + suffix(s.message()));
      }
    }
    List<String> waiting = new ArrayList<>();
    for (CheckStatus s : states) {
      if (s.state() != CheckState.Ready) {
        waiting.add(s.name() + " (" + why(s, known.get(s.name())) + ")");
      }
    }
    if (waiting.isEmpty()) {
      return new CheckVerdict.Admit();
    }
    return new CheckVerdict.Wait(
        "Quota reserved; waiting for admission checks: " + String.join(", ", waiting));
  }

  private static String why(CheckStatus s, KnownCheck check) {
    if (check == null) {
      return "AdmissionCheck " + s.name() + " does not exist";
    }
    if (!check.active()) {
      return "Pending; its controller "
          + check.controllerName()
          + " has not marked it Active"
          + (check.message() == null || check.message().isEmpty() ? "" : ": " + check.message());
    }
    return s.message().isEmpty() ? "Pending" : "Pending: " + s.message();
  }

  private static String suffix(String message) {
    return message == null || message.isEmpty() ? "" : ": " + message;
  }
}
