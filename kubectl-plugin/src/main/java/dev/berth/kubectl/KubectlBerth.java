package dev.berth.kubectl;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

/**
 * {@code kubectl berth}: Berth's queues, pending workloads and cohorts from the command line, and
 * Kueue YAML converted to Berth's.
 */
public final class KubectlBerth {
  private KubectlBerth() {}

  public static void main(String[] argv) {
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    int code = run(argv, out, System.console() != null);
    out.flush();
    System.exit(code);
  }

  /** Runs one command; 0 when done, 1 on an error, 2 on a bad command line. */
  static int run(String[] argv, PrintStream out, boolean terminal) {
    Options o;
    try {
      o = Options.parse(argv, terminal);
    } catch (Options.UsageError e) {
      List<String> words = java.util.Arrays.stream(argv).filter(a -> !a.startsWith("-")).toList();
      boolean topic = !words.isEmpty() && Help.has(words.get(0));
      System.err.println(
          "error: "
              + e.getMessage()
              + (topic
                  ? "\n" + Help.seeAlso(words.get(0), words.subList(1, words.size()))
                  : "\n\n" + Options.USAGE));
      return 2;
    }
    if (o.help() || o.command().equals("help")) {
      out.print(
          o.command().equals("help")
              ? Help.of(
                  o.arg(0), o.args().size() > 1 ? o.args().subList(1, o.args().size()) : List.of())
              : Help.of(o.command(), o.args()));
      return 0;
    }
    if (o.command().equals("convert")) {
      return ConvertCommand.run(o, System.in, out, System.err);
    }
    try {
      Kubectl kubectl = new Kubectl(o);
      Instant now = Instant.now();
      JsonNode data;
      String table;
      switch (o.command()) {
        case "__cds-training" -> {
          training(out);
          return 0;
        }
        case "queues" -> {
          data = QueuesCommand.data(kubectl);
          table = o.output() == null ? QueuesCommand.table(data, o.colour()) : null;
        }
        case "pending" -> {
          data = PendingCommand.data(o, kubectl, visibility(o, kubectl));
          table = o.output() == null ? PendingCommand.table(data, o.colour(), now) : null;
        }
        case "why" -> {
          data = WhyCommand.data(o, kubectl, () -> visibility(o, kubectl));
          table = o.output() == null ? WhyCommand.text(data, o.colour(), now) : null;
        }
        case "cohorts" -> {
          data = CohortsCommand.data(kubectl);
          table = o.output() == null ? CohortsCommand.table(data, o.colour()) : null;
        }
        case "create" -> {
          out.print(CreateCommand.run(o, kubectl));
          return 0;
        }
        case "stop", "resume" -> {
          out.print(StopCommand.run(o, kubectl));
          return 0;
        }
        case "list" -> {
          data = ListCommand.data(o, kubectl);
          table =
              o.output() == null
                  ? ListCommand.table(
                      Kinds.canonical(o.arg(0)), data, o.allNamespaces(), o.colour())
                  : null;
        }
        case "budgets" -> {
          data = BudgetsCommand.data(o, kubectl);
          table = o.output() == null ? BudgetsCommand.table(data) : null;
        }
        case "usage" -> {
          data = UsageCommand.data(o, kubectl);
          table = o.output() == null ? UsageCommand.table(data) : null;
        }
        default -> {
          System.err.println("error: unknown command " + o.command() + "\n\n" + Options.USAGE);
          return 2;
        }
      }
      out.print(table != null ? table : Printer.print(data, o.output()));
      return 0;
    } catch (Options.UsageError e) {
      System.err.println("error: " + e.getMessage() + "\n" + Help.seeAlso(o.command(), o.args()));
      return 2;
    } catch (Kubectl.Failure | Visibility.Failure e) {
      System.err.println("error: " + e.getMessage());
      return 1;
    } catch (java.io.IOException e) {
      System.err.println("error: " + e);
      return 1;
    }
  }

  /**
   * Runs every renderer on bundled sample data, with no cluster: what the install script runs once
   * with -XX:ArchiveClassesAtExit, so that the classes a command loads are in the AppCDS archive.
   */
  static void training(PrintStream out) throws java.io.IOException {
    JsonNode sample;
    try (var in = KubectlBerth.class.getResourceAsStream("training.json")) {
      sample = Kubectl.JSON.readTree(in);
    }
    Instant at = Instant.parse("2026-01-01T00:00:00Z");
    JsonNode queues = Kubectl.JSON.createObjectNode();
    out.print(
        QueuesCommand.table(
            QueuesCommand.fromLists(sample.get("clusterqueues"), sample.get("localqueues")), true));
    out.print(PendingCommand.table(sample.get("pending"), true, at));
    out.print(
        CohortsCommand.table(
            CohortsCommand.fromLists(sample.get("cohorts"), sample.get("clusterqueues")), true));
    out.print(Printer.print(sample, "yaml"));
    // convert's classes too (Jackson's YAML module, the bundled CRD schemas).
    String kueue =
        "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: a}\n"
            + "spec: {cohort: b, admissionChecks: [c]}\n";
    out.print(
        dev.berth.kubectl.convert.YamlDocuments.write(
            new dev.berth.kubectl.convert.KueueConverter()
                .convert(
                    "training",
                    dev.berth.kubectl.convert.YamlDocuments.read(
                        new java.io.ByteArrayInputStream(kueue.getBytes(StandardCharsets.UTF_8))))
                .documents()));
    out.print(Printer.print(queues, "json"));
    // kueuectl's commands: the lists, the usage sums, the help and a ClusterQueue from flags.
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    out.print(
        ListCommand.table(
            "workload",
            ListCommand.workloads(queues, queues, null, null, java.util.Set.of("all"), t),
            true,
            true));
    out.print(
        ListCommand.table(
            "clusterqueue",
            ListCommand.clusterQueues(sample.get("clusterqueues"), null, t),
            false,
            true));
    out.print(UsageCommand.table(UsageCommand.sum(queues, "namespace", null, null)));
    out.print(Help.of("create", List.of("clusterqueue")));
    try {
      out.print(
          Printer.print(
              CreateCommand.clusterQueue(
                  Options.parse(
                      new String[] {"create", "cq", "a", "--nominal-quota", "f:cpu=1;memory=1Gi"},
                      false)),
              "yaml"));
    } catch (Options.UsageError e) {
      throw new IllegalStateException(e);
    }
    try {
      Options.parse(new String[] {"pending", "-n", "x", "--cq=y", "-o", "yaml"}, false);
    } catch (Options.UsageError e) {
      throw new IllegalStateException(e);
    }
  }

  /** Through the API server unless a URL of the operator's HTTPS port is given. */
  private static Visibility visibility(Options o, Kubectl kubectl) {
    if (o.visibilityUrl() == null) {
      return new Visibility(kubectl);
    }
    return new Visibility(o.visibilityUrl(), o.visibilityCa(), BearerToken.resolve(o, kubectl));
  }
}
