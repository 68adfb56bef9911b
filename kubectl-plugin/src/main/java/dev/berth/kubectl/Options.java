package dev.berth.kubectl;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line of {@code kubectl berth}: a subcommand, its arguments and the flags. Unknown
 * flags and missing values are errors that name the flag.
 */
record Options(
    String command,
    List<String> args,
    String namespace,
    String clusterQueue,
    String output,
    String context,
    String kubeconfig,
    String visibilityUrl,
    String visibilityCa,
    String token,
    boolean colour,
    List<String> files,
    boolean recursive,
    boolean help,
    boolean allNamespaces,
    Map<String, String> flags) {

  static final String USAGE =
      """
      Usage: kubectl berth COMMAND [flags]

      Commands:
        queues                     ClusterQueues and LocalQueues: usage vs nominal, borrowed,
                                   lent, pending
        pending [-n NS] [--cq CQ]  pending workloads in admission order: positions, reasons,
                                   estimated starts
        why WORKLOAD|JOB -n NS     why a workload (or the Workload of a Job or JobSet) waits
        cohorts                    the cohort tree with quotas, weights and weighted shares
        create clusterqueue|localqueue NAME
                                   a ClusterQueue or LocalQueue from flags (see its --help)
        list workloads|clusterqueues|localqueues
                                   the objects in a table, filtered by queue, status, namespace
        stop|resume clusterqueue|localqueue|workload NAME
                                   hold a queue (stopPolicy) or deactivate a Workload (active)
        usage [-n NS|-A] [--by KEY] [--from MONTH] [--to MONTH]
                                   the UsageReports summed (or the operator's /usage) as a table
        budgets                    each Budget's window: hours used and allowed, exhausted,
                                   when it resets
        convert -f FILE|DIR|-      Kueue YAML (kueue.x-k8s.io v1beta1/v1beta2, and Jobs with
                                   kueue.x-k8s.io/ labels) to Berth's, on stdout; what cannot
                                   be carried over is reported on stderr

      Flags:
        -n, --namespace NS         namespace (pending: its LocalQueues; why: where the workload is)
            --cq CQ                pending: one ClusterQueue
        -o, --output json|yaml     machine-readable output instead of a table
            --context, --kubeconfig  passed to kubectl
            --visibility-url URL   call the operator's HTTPS port directly, e.g.
                                   https://berth.berth-system.svc:8443 (default
                                   $BERTH_VISIBILITY_URL, else through the API server:
                                   /apis/visibility.berth.dev/v1beta1, your kubeconfig)
            --visibility-ca FILE   with --visibility-url: PEM CA that signed the operator's
                                   serving certificate (default $BERTH_VISIBILITY_CA, else the
                                   JVM's trust store)
            --token TOKEN          with --visibility-url: bearer token (default $BERTH_TOKEN,
                                   else the kubeconfig user's token or exec credential)
            --no-color             no colour even on a terminal
        -f, --filename FILE|DIR|-  convert: a file, a directory's .yaml/.yml/.json files, or
                                   stdin (repeatable)
        -R, --recursive            convert: the directories' subdirectories too
        -h, --help                 help; COMMAND --help for a command's flags and examples
      """;

  /**
   * The flags of create, list, stop/resume and usage, each with whether it takes a value; their
   * values are kept in {@link #flags()} under the long name. Short forms as kueuectl spells them.
   */
  private static final Map<String, String> ALIASES =
      Map.ofEntries(
          Map.entry("-c", "--clusterqueue"),
          Map.entry("--cq", "--clusterqueue"),
          Map.entry("--cluster-queue", "--clusterqueue"),
          Map.entry("-q", "--localqueue"),
          Map.entry("-l", "--selector"),
          Map.entry("-i", "--ignore-unknown-cq"),
          Map.entry("--queueing-strategy", "--queuing-strategy"));

  private static final Map<String, Boolean> COMMAND_FLAGS =
      Map.ofEntries(
          Map.entry("--localqueue", true),
          Map.entry("--status", true),
          Map.entry("--selector", true),
          Map.entry("--cohort", true),
          Map.entry("--queuing-strategy", true),
          Map.entry("--namespace-selector", true),
          Map.entry("--reclaim-within-cohort", true),
          Map.entry("--preemption-within-cluster-queue", true),
          Map.entry("--nominal-quota", true),
          Map.entry("--borrowing-limit", true),
          Map.entry("--lending-limit", true),
          Map.entry("--dry-run", true),
          Map.entry("--by", true),
          Map.entry("--from", true),
          Map.entry("--to", true),
          Map.entry("--usage-url", true),
          Map.entry("--active", true),
          Map.entry("--keep-already-running", false),
          Map.entry("--ignore-unknown-cq", false));

  /** A command line that cannot be run; the message names the flag or argument. */
  static final class UsageError extends Exception {
    UsageError(String message) {
      super(message);
    }
  }

  /** A command-specific flag's value (long name, e.g. {@code --nominal-quota}), or null. */
  String flag(String name) {
    return flags.get(name);
  }

  boolean has(String name) {
    return flags.containsKey(name);
  }

  /** The argument at {@code i}, or null. */
  String arg(int i) {
    return i < args.size() ? args.get(i) : null;
  }

  static Options parse(String[] argv, boolean terminal) throws UsageError {
    String command = null;
    List<String> args = new ArrayList<>();
    String namespace = null;
    String cq = null;
    String output = null;
    String context = null;
    String kubeconfig = null;
    String url = System.getenv("BERTH_VISIBILITY_URL");
    String ca = System.getenv("BERTH_VISIBILITY_CA");
    String token = System.getenv("BERTH_TOKEN");
    boolean colour = terminal && System.getenv("NO_COLOR") == null;
    List<String> files = new ArrayList<>();
    boolean recursive = false;
    boolean help = false;
    boolean all = false;
    Map<String, String> flags = new LinkedHashMap<>();
    List<String> words = new ArrayList<>();
    for (String a : argv) {
      int eq = a.indexOf('=');
      if (a.startsWith("--") && eq > 0) {
        words.add(a.substring(0, eq));
        words.add(a.substring(eq + 1));
      } else {
        words.add(a);
      }
    }
    for (int i = 0; i < words.size(); i++) {
      String typed = words.get(i);
      String a = ALIASES.getOrDefault(typed, typed);
      if (COMMAND_FLAGS.containsKey(a)) {
        flags.put(a, COMMAND_FLAGS.get(a) ? value(words, i++, typed) : "true");
        continue;
      }
      switch (a) {
        case "-n", "--namespace" -> namespace = value(words, i++, a);
        case "--clusterqueue" -> cq = value(words, i++, typed);
        case "-A", "--all-namespaces" -> all = true;
        case "-o", "--output" -> output = value(words, i++, a);
        case "--context" -> context = value(words, i++, a);
        case "--kubeconfig" -> kubeconfig = value(words, i++, a);
        case "--visibility-url" -> url = value(words, i++, a);
        case "--visibility-ca" -> ca = value(words, i++, a);
        case "--token" -> token = value(words, i++, a);
        case "--no-color", "--no-colour" -> colour = false;
        case "-f", "--filename" -> files.add(value(words, i++, a));
        case "-R", "--recursive" -> recursive = true;
        case "-h", "--help" -> help = true;
        default -> {
          if (a.startsWith("-")) {
            throw new UsageError("unknown flag " + a);
          }
          if (command == null) {
            command = a;
          } else {
            args.add(a);
          }
        }
      }
    }
    if (output != null && !output.equals("json") && !output.equals("yaml")) {
      throw new UsageError("--output: " + output + " is not json or yaml");
    }
    return new Options(
        command == null ? "help" : command,
        List.copyOf(args),
        namespace,
        cq,
        output,
        context,
        kubeconfig,
        url == null || url.isBlank() ? null : url,
        ca == null || ca.isBlank() ? null : ca,
        token,
        colour,
        List.copyOf(files),
        recursive,
        help,
        all,
        Map.copyOf(flags));
  }

  private static String value(List<String> words, int i, String flag) throws UsageError {
    if (i + 1 >= words.size() || words.get(i + 1).isEmpty()) {
      throw new UsageError(flag + " needs a value");
    }
    return words.get(i + 1);
  }
}
