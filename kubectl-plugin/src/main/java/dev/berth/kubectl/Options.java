package dev.berth.kubectl;

import java.util.ArrayList;
import java.util.List;

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
    boolean recursive) {

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
        convert -f FILE|DIR|-      Kueue YAML (kueue.x-k8s.io v1beta1/v1beta2, and Jobs with
                                   kueue.x-k8s.io/ labels) to Berth's, on stdout; what cannot
                                   be carried over is reported on stderr

      Flags:
        -n, --namespace NS         namespace (pending: its LocalQueues; why: where the workload is)
            --cq CQ                pending: one ClusterQueue
        -o, --output json|yaml     machine-readable output instead of a table
            --context, --kubeconfig  passed to kubectl
            --visibility-url URL   the operator's visibility API, on its HTTPS port (default
                                   $BERTH_VISIBILITY_URL, else the chart's Service,
                                   https://berth.berth-system.svc:8443)
            --visibility-ca FILE   PEM CA that signed the operator's serving certificate
                                   (default $BERTH_VISIBILITY_CA, else the JVM's trust store)
            --token TOKEN          bearer token for the visibility API (default $BERTH_TOKEN,
                                   else the kubeconfig user's token or exec credential)
            --no-color             no colour even on a terminal
        -f, --filename FILE|DIR|-  convert: a file, a directory's .yaml/.yml/.json files, or
                                   stdin (repeatable)
        -R, --recursive            convert: the directories' subdirectories too
      """;

  /** A command line that cannot be run; the message names the flag or argument. */
  static final class UsageError extends Exception {
    UsageError(String message) {
      super(message);
    }
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
      String a = words.get(i);
      switch (a) {
        case "-n", "--namespace" -> namespace = value(words, i++, a);
        case "--cq", "--cluster-queue" -> cq = value(words, i++, a);
        case "-o", "--output" -> output = value(words, i++, a);
        case "--context" -> context = value(words, i++, a);
        case "--kubeconfig" -> kubeconfig = value(words, i++, a);
        case "--visibility-url" -> url = value(words, i++, a);
        case "--visibility-ca" -> ca = value(words, i++, a);
        case "--token" -> token = value(words, i++, a);
        case "--no-color", "--no-colour" -> colour = false;
        case "-f", "--filename" -> files.add(value(words, i++, a));
        case "-R", "--recursive" -> recursive = true;
        case "-h", "--help" -> command = "help";
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
        url == null || url.isBlank() ? ChartDefaults.VISIBILITY_URL : url,
        ca == null || ca.isBlank() ? null : ca,
        token,
        colour,
        List.copyOf(files),
        recursive);
  }

  private static String value(List<String> words, int i, String flag) throws UsageError {
    if (i + 1 >= words.size() || words.get(i + 1).isEmpty()) {
      throw new UsageError(flag + " needs a value");
    }
    return words.get(i + 1);
  }
}
