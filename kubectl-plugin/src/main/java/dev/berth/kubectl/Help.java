package dev.berth.kubectl;

import java.util.List;
import java.util.Map;

/**
 * The help of each command as kubectl prints its own ({@code kubectl create --help}): what it does,
 * examples, its options, its usage line. Chosen by the words typed before {@code --help}.
 */
final class Help {
  private Help() {}

  private static final String GLOBAL =
      """

      Global options (every command): --context, --kubeconfig (passed to kubectl), -o json|yaml,
      --no-color. See 'kubectl berth --help' for the other commands.
      """;

  private static final Map<String, String> TOPICS =
      Map.ofEntries(
          Map.entry(
              "create",
              """
              Create a Berth queue from flags.

              Available Commands:
                clusterqueue   Create a ClusterQueue (cluster-scoped; a platform admin's)
                localqueue     Create a LocalQueue in a namespace, pointing at a ClusterQueue

              Usage:
                kubectl berth create clusterqueue|localqueue NAME [options]

              Use 'kubectl berth create clusterqueue --help' for a command's options.
              """),
          Map.entry(
              "create clusterqueue",
              """
              Create a ClusterQueue with the given name. Quotas are FLAVOR:RESOURCE=QUANTITY, several
              resources of one flavor separated by ';', several flavors by ','. Flavors that cover
              the same resources form one resource group.

              Examples:
                # A ClusterQueue for the namespaces labelled berth.dev/team=llm, 9 cpus of flavor default
                kubectl berth create clusterqueue team-llm \\
                  --namespace-selector berth.dev/team=llm --nominal-quota "default:cpu=9;memory=36Gi"

                # Two flavors in a cohort, with borrowing and lending limits
                kubectl berth create clusterqueue team-llm --cohort ai \\
                  --nominal-quota "h100:nvidia.com/gpu=16,a100:nvidia.com/gpu=8" \\
                  --borrowing-limit "h100:nvidia.com/gpu=8" --lending-limit "a100:nvidia.com/gpu=4"

                # Print it instead of creating it (the API server and Berth's webhooks check it too
                # with --dry-run=server)
                kubectl berth create clusterqueue team-llm --nominal-quota "default:cpu=9" \\
                  --dry-run=client -o yaml

              Options:
                  --cohort='': the cohort this ClusterQueue belongs to (spec.cohortName)
                  --namespace-selector='': KEY=VALUE[,KEY=VALUE]: the namespaces whose LocalQueues
                      may use it (spec.namespaceSelector.matchLabels). Without it the ClusterQueue
                      selects no namespace: Berth never writes the {} that would manage every one
                  --queuing-strategy='': StrictFIFO or BestEffortFIFO (the default)
                  --reclaim-within-cohort='': Never (the default), LowerPriority or Any
                  --preemption-within-cluster-queue='': Never (the default), LowerPriority or
                      LowerOrNewerEqualPriority
                  --nominal-quota='': FLAVOR:RESOURCE=QUANTITY[;RESOURCE=QUANTITY][,FLAVOR:...]
                  --borrowing-limit='': the same form; each flavor and resource needs a nominal quota
                  --lending-limit='': the same form; at most the nominal quota
                  --dry-run='none': none, client (print, create nothing) or server (the API server
                      and the webhooks check it, nothing is stored)
                  -o, --output='': json or yaml: print the object created

              Usage:
                kubectl berth create clusterqueue NAME [options]
              """),
          Map.entry(
              "create localqueue",
              """
              Create a LocalQueue with the given name in a namespace (-n, else the context's).

              Examples:
                # A LocalQueue "training" of ClusterQueue team-llm in namespace team-llm
                kubectl berth create localqueue training -c team-llm -n team-llm

                # Before its ClusterQueue exists
                kubectl berth create localqueue training -c team-llm -n team-llm -i

              Options:
                  -c, --clusterqueue='': the ClusterQueue it submits to (required)
                  -i, --ignore-unknown-cq: create it even when that ClusterQueue does not exist
                  --dry-run='none': none, client or server
                  -o, --output='': json or yaml: print the object created

              Usage:
                kubectl berth create localqueue NAME -c CLUSTERQUEUE [-n NAMESPACE] [options]
              """),
          Map.entry(
              "list",
              """
              List Berth's objects in a table.

              Available Commands:
                workloads      Workloads with their job, queues, status and age (alias wl)
                clusterqueues  ClusterQueues with cohort, pending and admitted counts (alias cq)
                localqueues    LocalQueues with their ClusterQueue and counts (alias lq)

              Usage:
                kubectl berth list workloads|clusterqueues|localqueues [options]
              """),
          Map.entry(
              "list workload",
              """
              List Workloads: in a namespace (-n, else the context's), or in all (-A).

              Examples:
                # The pending Workloads of LocalQueue training
                kubectl berth list workloads -n team-llm -q training --status pending

                # Every admitted Workload of ClusterQueue team-llm
                kubectl berth list workloads -A -c team-llm --status admitted

              Options:
                  -A, --all-namespaces: in every namespace
                  -c, --clusterqueue='': only those of this ClusterQueue (admitted there, or
                      submitted to one of its LocalQueues)
                  -q, --localqueue='': only those of this LocalQueue
                  --status='all': all, pending, quotareserved, admitted or finished; several
                      separated by ','
                  -l, --selector='': a label selector, as kubectl's
                  -o, --output='': json or yaml

              Columns: STATUS is FINISHED, ADMITTED, QUOTARESERVED or PENDING; ACTIVE is false once
              stopped (spec.active); EXEC TIME is the time since admission (to the finish, when
              finished). Positions in the queue: kubectl berth pending.

              Usage:
                kubectl berth list workloads [-n NAMESPACE|-A] [options]
              """),
          Map.entry(
              "list clusterqueue",
              """
              List ClusterQueues.

              Examples:
                kubectl berth list clusterqueues --active false

              Options:
                  --active='': true or false: only the active or the inactive ones
                  -l, --selector='': a label selector, as kubectl's
                  -o, --output='': json or yaml

              Usage:
                kubectl berth list clusterqueues [options]
              """),
          Map.entry(
              "list localqueue",
              """
              List LocalQueues: in a namespace (-n, else the context's), or in all (-A).

              Examples:
                kubectl berth list localqueues -A -c team-llm

              Options:
                  -A, --all-namespaces: in every namespace
                  -c, --clusterqueue='': only those of this ClusterQueue
                  -l, --selector='': a label selector, as kubectl's
                  -o, --output='': json or yaml

              Usage:
                kubectl berth list localqueues [-n NAMESPACE|-A] [options]
              """),
          Map.entry(
              "stop",
              """
              Stop a queue or a Workload; resume undoes it.

              Available Commands:
                clusterqueue   Hold a ClusterQueue: spec.stopPolicy HoldAndDrain (evicts what it
                               admitted) or, with --keep-already-running, Hold
                localqueue     The same for a LocalQueue
                workload       Deactivate a Workload (spec.active: false): it is not admitted, and
                               if it was, it is evicted and requeued as if preempted

              Examples:
                kubectl berth stop clusterqueue team-llm --keep-already-running
                kubectl berth stop workload job-train-4ccb6 -n team-llm

              Usage:
                kubectl berth stop clusterqueue|localqueue|workload NAME [-n NAMESPACE] [options]
              """),
          Map.entry(
              "resume",
              """
              Resume a stopped queue (spec.stopPolicy: None) or Workload (spec.active: true).

              Examples:
                kubectl berth resume clusterqueue team-llm
                kubectl berth resume workload job-train-4ccb6 -n team-llm

              Usage:
                kubectl berth resume clusterqueue|localqueue|workload NAME [-n NAMESPACE]
              """),
          Map.entry(
              "usage",
              """
              What was used: the monthly UsageReports (requested resource × time with quota
              reserved, and GPU time used where measured) summed per namespace, LocalQueue,
              ClusterQueue or cost centre, per flavor and resource. Read through kubectl from the
              namespace given (-n, else the context's) or all (-A), so RBAC applies as to
              kubectl get usagereports; or, with --usage-url, from the operator's /usage.

              Examples:
                # GPU-hours of a namespace, per LocalQueue, this year
                kubectl berth usage -n team-llm --by localqueue --from 2026-01

                # Every namespace's, per cost centre, for November
                kubectl berth usage -A --by cost-centre --from 2026-11 --to 2026-12

                # The same from the operator (its metrics port, e.g. after
                # kubectl -n berth-system port-forward deploy/berth 8080)
                kubectl berth usage --by cost-centre --usage-url http://127.0.0.1:8080

              Options:
                  -A, --all-namespaces: every namespace's reports
                  --by='namespace': namespace, localqueue, clusterqueue or cost-centre
                  --from='': first month counted, as 2026-11
                  --to='': first month not counted, as 2026-12
                  --usage-url='': the operator's metrics port; its /usage answers instead (all
                      namespaces)
                  -o, --output='': json or yaml (the rows of /usage?format=json)

              Usage:
                kubectl berth usage [-n NAMESPACE|-A] [--by KEY] [--from MONTH] [--to MONTH] [options]
              """));

  /** The help for what was typed before --help, or the command list. */
  static String of(String command, List<String> args) {
    if (command == null || command.equals("help")) {
      return Options.USAGE;
    }
    String sub = args.isEmpty() ? null : Kinds.canonical(args.get(0));
    String topic = sub == null ? null : TOPICS.get(command + " " + sub);
    if (topic == null && sub != null && (command.equals("stop") || command.equals("resume"))) {
      topic = TOPICS.get(command);
    }
    if (topic == null) {
      topic = TOPICS.get(command);
    }
    return topic == null ? Options.USAGE : topic + GLOBAL;
  }

  /** Whether a command has help of its own (create, list, stop, resume, usage). */
  static boolean has(String command) {
    return TOPICS.containsKey(command);
  }

  /** "See 'kubectl berth create clusterqueue --help' for usage." after a bad command line. */
  static String seeAlso(String command, List<String> args) {
    String sub = args.isEmpty() ? null : Kinds.canonical(args.get(0));
    String words =
        command == null
            ? ""
            : TOPICS.containsKey(command + " " + sub)
                ? command + " " + sub + " "
                : TOPICS.containsKey(command) ? command + " " : "";
    return "See 'kubectl berth " + words + "--help' for usage.";
  }
}
