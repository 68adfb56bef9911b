package dev.berth.kubectl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Set;

/**
 * {@code kubectl berth stop|resume clusterqueue|localqueue|workload NAME}: a queue's {@code
 * spec.stopPolicy} (HoldAndDrain, Hold with --keep-already-running, None to resume) or a Workload's
 * {@code spec.active}, by a merge patch through kubectl, so RBAC and the webhooks decide.
 */
final class StopCommand {
  private StopCommand() {}

  /** What is printed: the patched object (-o), or "KIND/NAME stopped". */
  static String run(Options o, Kubectl kubectl) throws Options.UsageError {
    boolean stop = o.command().equals("stop");
    String kind = Kinds.canonical(o.arg(0));
    if (kind == null) {
      throw new Options.UsageError(
          o.command()
              + (o.arg(0) == null ? " needs" : ": " + o.arg(0) + " is not")
              + " clusterqueue, localqueue or workload");
    }
    String name = o.arg(1);
    if (name == null || o.args().size() > 2) {
      throw new Options.UsageError(o.command() + " " + kind + " takes one NAME");
    }
    Set<String> allowed =
        stop && !kind.equals("workload") ? Set.of("--keep-already-running") : Set.of();
    for (String flag : o.flags().keySet()) {
      if (!allowed.contains(flag)) {
        throw new Options.UsageError(flag + " is not a flag of " + o.command() + " " + kind);
      }
    }
    JsonNode patched =
        kubectl.patch(
            Kinds.resource(kind),
            name,
            kind.equals("clusterqueue") ? null : o.namespace(),
            patch(kind, stop, o.has("--keep-already-running")));
    if (o.output() != null) {
      return Printer.print(patched, o.output());
    }
    return Kinds.resource(kind) + "/" + name + (stop ? " stopped" : " resumed") + "\n";
  }

  /** The merge patch: stopPolicy for a queue, active for a Workload. */
  static JsonNode patch(String kind, boolean stop, boolean keepRunning) {
    ObjectNode patch = Kubectl.JSON.createObjectNode();
    ObjectNode spec = patch.putObject("spec");
    if (kind.equals("workload")) {
      spec.put("active", !stop);
    } else {
      spec.put("stopPolicy", !stop ? "None" : keepRunning ? "Hold" : "HoldAndDrain");
    }
    return patch;
  }
}
