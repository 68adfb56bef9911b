package dev.berth.operator.local;

import dev.berth.operator.BerthOperator;
import dev.berth.operator.OperatorConfig;
import dev.berth.webhook.WebhookRuntime;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * Berth on a machine with no cluster: a control plane on this machine (API server, controller
 * manager, scheduler, KWOK nodes, the JobSet controller where built), the CRDs, the operator, the
 * samples applied, and a stream of what is admitted and why the rest waits. Admitted Jobs really
 * get pods that are scheduled, run and finish. Ctrl-C stops it all.
 */
public final class LocalMode {
  /** The sample namespace whose team member gets a kubeconfig. */
  static final String TEAM_NAMESPACE = "team-llm";

  private LocalMode() {}

  /**
   * Options: --samples DIR (default ./samples), --run-seconds N (how long a pod runs unless its
   * kwok.berth.dev/run-for annotation says otherwise).
   */
  public static void run(String[] args) throws Exception {
    PrintStream out = System.out;
    Path samples = Path.of(option(args, "--samples", "samples"));
    long runSeconds = runSeconds(option(args, "--run-seconds", "20"));
    Path kubeconfig = Path.of(option(args, "--kubeconfig-out", "target/berth-local/kubeconfig"))
        .toAbsolutePath();
    Path workDir = kubeconfig.getParent();

    out.println("berth: no cluster given; starting local mode: kube-apiserver, etcd,"
        + " kube-controller-manager, kube-scheduler and KWOK nodes (logs in " + workDir + ")");
    LocalCluster cluster = LocalCluster.start(workDir, Duration.ofSeconds(runSeconds));
    out.println("berth: " + SimulatedNodes.nodes().size() + " simulated nodes run by KWOK (16 H100"
        + " of Topology dc1, and the A100, MIG and L4 pools the samples name); pods run "
        + runSeconds + "s unless annotated " + Kwok.RUN_FOR);
    out.println(cluster.plane().realJobSet()
        ? "berth: JobSet controller v" + JobSetController.VERSION + " running"
        : "berth: no JobSet controller (scripts/jobset-binary.sh builds it from"
            + " ../shared/third-party): JobSets are admitted, but nothing creates their Jobs");
    cluster.client().namespaces().resource(new NamespaceBuilder().withNewMetadata()
        .withName("berth-system").endMetadata().build()).serverSideApply();
    WebhookRuntime webhooks = startWebhooks(cluster, out);
    BerthOperator operator =
        BerthOperator.start(
            cluster.client(),
            new OperatorConfig("berth-system", false, "berth-leader", 8080, false, 0,
                "berth-operator", false, false));
    out.println("berth: operator running; metrics on http://127.0.0.1:" + operator.metricsPort()
        + "/metrics");
    AdmissionFeed feed = new AdmissionFeed(cluster.client(), out);
    if (Files.isDirectory(samples)) {
      out.println("berth: applying " + samples.toAbsolutePath());
      new SampleApplier(cluster.client(), out).apply(samples);
    } else {
      out.println("berth: no samples at " + samples.toAbsolutePath() + "; apply your own with kubectl");
    }
    LocalIdentities people = LocalIdentities.create(cluster.client(), kubeconfig, TEAM_NAMESPACE);
    out.println("berth: kubectl as a cluster admin (not the operator: Berth's rules apply to it too):");
    out.println("berth:   export KUBECONFIG=" + people.adminKubeconfig());
    out.println("berth: kubectl as a team member of " + TEAM_NAMESPACE + " (edit + berth-batch-user there):");
    out.println("berth:   export KUBECONFIG=" + people.teamKubeconfig());
    out.println("berth: watching admissions; Ctrl-C stops everything");

    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      out.println("berth: stopping");
      feed.close();
      operator.close();
      webhooks.close();
      cluster.close();
      stopped.countDown();
    }, "berth-local-stop"));
    stopped.await();
  }

  private static WebhookRuntime startWebhooks(LocalCluster cluster, PrintStream out) throws Exception {
    int port = Integer.parseInt(System.getenv().getOrDefault("BERTH_WEBHOOK_PORT", "9443"));
    WebhookRuntime webhooks = LoopbackWebhooks.start(cluster.client(), LocalCluster.ADMIN_USER, port);
    out.println("berth: webhooks on https://127.0.0.1:" + port + " (validating and mutating)");
    return webhooks;
  }

  private static long runSeconds(String value) {
    try {
      long seconds = Long.parseLong(value);
      if (seconds > 0) {
        return seconds;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "--run-seconds: expected a whole number of seconds above 0, got '" + value + "'");
  }

  private static String option(String[] args, String name, String fallback) {
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals(name)) {
        return args[i + 1];
      }
    }
    return fallback;
  }
}
