package dev.berth.local;

import dev.berth.operator.BerthOperator;
import dev.berth.operator.OperatorConfig;
import dev.berth.operator.config.Configuration;
import dev.berth.webhook.WebhookRuntime;
import dev.berth.webhook.integration.Framework;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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

  /** The quota resource the stand-in driver's DeviceClass is charged to (samples/dra). */
  public static final String DRA_GPU = "example.com/dra-gpu";

  /** The chart's value that maps it, given to the webhooks and the operator alike. */
  static final String[] DRA_MAPPING = {
    "deviceClassMappings[0].name=" + DRA_GPU,
    "deviceClassMappings[0].deviceClassNames={" + DraDriverStandIn.DRIVER + "}"
  };

  private LocalMode() {}

  /** The local jar's entry point, which ./berth starts when there is no cluster (or --local). */
  public static void main(String[] args) throws Exception {
    quietLog(System.getProperties());
    run(args);
  }

  /**
   * The terminal is for Berth's stream (the berth: lines, the samples applied, the admission feed)
   * and for warnings: the operator's own start-up lines at info, which a cluster's log keeps, only
   * repeat here what the berth: lines say. Set before anything logs (slf4j-simple reads its levels
   * once); a level given with -D on the command line wins.
   */
  static void quietLog(java.util.Properties system) {
    system.putIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", "warn");
  }

  /**
   * Runs until Ctrl-C. Options: --samples DIR (default ./samples), --run-seconds N (how long a pod
   * runs unless its kwok.berth.dev/run-for annotation says otherwise), --kubeconfig-out FILE,
   * --metrics-port N (default 8080), --webhook-port N (default $BERTH_WEBHOOK_PORT or 9443),
   * --https-port N (default 8443: the visibility API and the dashboard).
   */
  public static void run(String[] args) throws Exception {
    PrintStream out = System.out;
    Running running = start(args, out);
    out.println("berth: watching admissions; Ctrl-C stops everything");
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  out.println("berth: stopping");
                  running.close();
                  stopped.countDown();
                },
                "berth-local-stop"));
    stopped.await();
  }

  /** Starts everything {@link #run} does and returns it running; close() stops it all. */
  public static Running start(String[] args, PrintStream out) throws Exception {
    Path samples = Path.of(option(args, "--samples", "samples"));
    long runSeconds = positive("--run-seconds", option(args, "--run-seconds", "20"));
    int metricsPort = port("--metrics-port", option(args, "--metrics-port", "8080"), 0);
    int httpsPort = port("--https-port", option(args, "--https-port", "8443"), 0);
    // The API server calls the webhooks at this port: it must be a real one.
    int webhookPort =
        port(
            "--webhook-port",
            option(
                args, "--webhook-port", System.getenv().getOrDefault("BERTH_WEBHOOK_PORT", "9443")),
            1);
    Path kubeconfig =
        Path.of(option(args, "--kubeconfig-out", "target/berth-local/kubeconfig")).toAbsolutePath();
    Path workDir = kubeconfig.getParent();

    out.println(
        "berth: no cluster given; starting local mode: kube-apiserver, etcd,"
            + " kube-controller-manager, kube-scheduler and KWOK nodes (logs in "
            + workDir
            + ")");
    Running running = new Running();
    try {
      running.cluster = LocalCluster.start(workDir, Duration.ofSeconds(runSeconds));
      LocalCluster cluster = running.cluster;
      out.println(
          "berth: "
              + SimulatedNodes.nodes().size()
              + " simulated nodes run by KWOK (16"
              + " H100 of Topology dc1, the A100, MIG, L4 and DRA pools the samples name, and "
              + SimulatedNodes.CPU_NODES
              + " untainted CPU nodes); pods run "
              + runSeconds
              + "s unless annotated "
              + Kwok.RUN_FOR);
      out.println(
          cluster.plane().realJobSet()
              ? "berth: JobSet controller v" + JobSetController.VERSION + " running"
              : "berth: no JobSet controller (scripts/jobset-binary.sh builds it from"
                  + " ../shared/third-party): JobSets are admitted, but nothing creates their Jobs");
      running.kubeRay =
          KubeRayOperator.startIfBuilt(
              cluster.client(),
              cluster.plane().logDir().resolve("admin.kubeconfig"),
              cluster.plane().logDir());
      out.println(
          running.kubeRay.isPresent()
              ? "berth: KubeRay operator v"
                  + KubeRayOperator.VERSION
                  + " running (KWOK runs no Ray: the Ray dashboard it polls is a stand-in"
                  + " that follows each RayJob's submitter Job)"
              : "berth: no KubeRay operator (scripts/kuberay-binary.sh builds it): the RayJob"
                  + " sample is not applied");
      cluster
          .client()
          .namespaces()
          .resource(
              new NamespaceBuilder()
                  .withNewMetadata()
                  .withName("berth-system")
                  .endMetadata()
                  .build())
          .serverSideApply();
      OperatorConfig operatorConfig =
          new OperatorConfig(
              "berth-system",
              false,
              "berth-leader",
              metricsPort,
              false,
              0,
              "berth-operator",
              false,
              false);
      out.println(
          cluster.realLeaderWorkerSet()
              ? "berth: LeaderWorkerSet controller v"
                  + LwsController.VERSION
                  + " running; applying samples/leaderworkerset too"
              : "berth: no LeaderWorkerSet controller (scripts/lws-binary.sh builds it from"
                  + " ../shared/third-party into "
                  + LwsController.dir()
                  + "): the LWS sample is not applied");
      out.println(trainerLine(cluster.realTrainer(), cluster.plane().realJobSet()));
      // Every kind on, the serving ones too (off by default in a cluster): local mode is where
      // a team tries what Berth does with each, and the samples include a serving Deployment.
      // The DRA pool's devices, charged to DRA_GPU by the mapping the chart's value renders.
      publishDraDevices(cluster.client());
      Configuration configuration =
          operatorConfig
              .configuration()
              .withIntegrations(new Configuration.Integrations(Framework.frameworkNames()))
              .withResources(
                  LoopbackWebhooks.chartConfiguration("berth-system", DRA_MAPPING).resources());
      out.println(
          "berth: DRA: "
              + DraDriverStandIn.class.getSimpleName()
              + " (a stand-in: KWOK runs no kubelet plugin) publishes "
              + SimulatedNodes.DRA_DEVICES
              + " GPUs of DeviceClass "
              + DraDriverStandIn.DRIVER
              + " on each node of the dra pool, charged as "
              + DRA_GPU
              + " (chart value deviceClassMappings)");
      List<String> enabled = configuration.integrations().frameworks();
      out.println(
          "berth: integrations on: "
              + String.join(", ", enabled)
              + Framework.frameworkNames().stream()
                  .filter(name -> !enabled.contains(name))
                  .reduce((a, b) -> a + ", " + b)
                  .map(off -> "; off (integrations.frameworks): " + off)
                  .orElse(""));
      // The chart's webhooks of the same kinds: a kind the operator does not run is not
      // intercepted.
      running.webhooks =
          LoopbackWebhooks.start(
              cluster.client(),
              LocalCluster.ADMIN_USER,
              webhookPort,
              configuration.resources().mappings(),
              chartValues(enabled));
      out.println(
          "berth: webhooks on https://127.0.0.1:" + webhookPort + " (validating and mutating)");
      running.operator =
          BerthOperator.start(
              cluster.client(),
              configuration,
              () -> out.println("berth: a kind's CRD appeared; its integration is on"));
      out.println(
          "berth: operator running; metrics on http://127.0.0.1:"
              + running.operator.metricsPort()
              + "/metrics");
      // The webhooks' loopback certificate (127.0.0.1) serves the dashboard too.
      running.httpsPort =
          running.operator.serveHttps("127.0.0.1", httpsPort, running.webhooks.keys(), true);
      Path ca = DashboardLink.writeCa(running.webhooks.keys(), workDir);
      running.feed = new AdmissionFeed(cluster.client(), out);
      if (Files.isDirectory(samples)) {
        out.println("berth: applying " + samples.toAbsolutePath());
        // A RayJob nothing runs would hold its quota for good: applied only with KubeRay.
        new SampleApplier(
                cluster.client(),
                out,
                object ->
                    running.kubeRay.isPresent() || !object.getApiVersion().startsWith("ray.io/"))
            .apply(samples);
        // samples/dra needs the DeviceClass and slices published above.
        Path draSamples = samples.resolve("dra");
        if (Files.isDirectory(draSamples)) {
          new SampleApplier(cluster.client(), out, object -> true).apply(draSamples);
        }
        Path lwsSamples = samples.resolve("leaderworkerset");
        if (cluster.realLeaderWorkerSet() && Files.isDirectory(lwsSamples)) {
          new SampleApplier(cluster.client(), out, object -> true).apply(lwsSamples);
        }
        // samples/kubeflow holds the training operator's PyTorchJob too, which local mode does
        // not run: only the Trainer's kinds are applied.
        Path kubeflowSamples = samples.resolve("kubeflow");
        if (cluster.realTrainer() && Files.isDirectory(kubeflowSamples)) {
          new SampleApplier(
                  cluster.client(),
                  out,
                  object -> object.getApiVersion().startsWith("trainer.kubeflow.org/"))
              .apply(kubeflowSamples);
        }
      } else {
        out.println(
            "berth: no samples at " + samples.toAbsolutePath() + "; apply your own with kubectl");
      }
      running.people = LocalIdentities.create(cluster.client(), kubeconfig, TEAM_NAMESPACE);
      running.dashboardUrl = DashboardLink.url(running.httpsPort, running.people.adminToken());
      out.println(
          "berth: dashboard (as the local admin; the link carries its token, keep it"
              + " private; the certificate is local mode's own CA, "
              + ca
              + "):");
      out.println("berth:   " + running.dashboardUrl);
    } catch (Exception e) {
      running.close();
      throw e;
    }
    out.println(
        "berth: kubectl as a cluster admin (not the operator: Berth's rules apply to it"
            + " too):");
    out.println("berth:   export KUBECONFIG=" + running.people.adminKubeconfig());
    out.println(
        "berth: kubectl as a team member of "
            + TEAM_NAMESPACE
            + " (edit + berth-batch-user there):");
    out.println("berth:   export KUBECONFIG=" + running.people.teamKubeconfig());
    return running;
  }

  /** The chart's values local mode renders its webhooks and operator configuration with. */
  static String[] chartValues(List<String> frameworks) {
    List<String> values = new java.util.ArrayList<>(List.of(DRA_MAPPING));
    values.add("integrations.frameworks={" + String.join(",", frameworks) + "}");
    return values.toArray(String[]::new);
  }

  /** The stand-in driver's DeviceClass and a slice for each node of the DRA pool. */
  private static void publishDraDevices(io.fabric8.kubernetes.client.KubernetesClient client) {
    client.resource(DraDriverStandIn.deviceClass()).serverSideApply();
    DraDriverStandIn driver = new DraDriverStandIn(client);
    SimulatedNodes.dra()
        .forEach(n -> driver.publish(n.getMetadata().getName(), SimulatedNodes.DRA_DEVICES));
  }

  /** What the berth: line says of Kubeflow Trainer: running, or why not and how to build it. */
  static String trainerLine(boolean running, boolean jobSetController) {
    if (running) {
      return "berth: Kubeflow Trainer v"
          + KubeflowTrainer.VERSION
          + " running (without its webhooks); applying samples/kubeflow's runtime and TrainJob too";
    }
    if (KubeflowTrainer.built() && !jobSetController) {
      return "berth: Kubeflow Trainer is built but not started: no JobSet controller would run"
          + " the JobSets it makes; the TrainJob sample is not applied";
    }
    return "berth: no Kubeflow Trainer (scripts/trainer-binary.sh builds it, with"
        + " ../shared/third-party's JobSet v0.8.2 API, into "
        + KubeflowTrainer.dir()
        + "): the TrainJob sample is not applied";
  }

  /** Local mode running: its cluster, webhooks, operator and feed, stopped in reverse order. */
  public static final class Running implements AutoCloseable {
    private LocalCluster cluster;
    private WebhookRuntime webhooks;
    private BerthOperator operator;
    private java.util.Optional<KubeRayOperator> kubeRay = java.util.Optional.empty();
    private AdmissionFeed feed;
    private LocalIdentities people;
    private int httpsPort;
    private String dashboardUrl;

    private Running() {}

    /** The dashboard's address, with the admin's token in the fragment. */
    public String dashboardUrl() {
      return dashboardUrl;
    }

    public int httpsPort() {
      return httpsPort;
    }

    public Path adminKubeconfig() {
      return people.adminKubeconfig();
    }

    /** Whether the real KubeRay operator runs (scripts/kuberay-binary.sh built it). */
    public boolean realKubeRay() {
      return kubeRay.isPresent();
    }

    /** Whether the real JobSet controller runs (scripts/jobset-binary.sh built it). */
    public boolean realJobSet() {
      return cluster.plane().realJobSet();
    }

    /** Whether the real LeaderWorkerSet controller runs (scripts/lws-binary.sh built it). */
    public boolean realLeaderWorkerSet() {
      return cluster.realLeaderWorkerSet();
    }

    /** Whether Kubeflow Trainer runs (scripts/trainer-binary.sh built it). */
    public boolean realTrainer() {
      return cluster.realTrainer();
    }

    @Override
    public void close() {
      if (feed != null) {
        feed.close();
      }
      if (operator != null) {
        operator.close();
      }
      if (webhooks != null) {
        webhooks.close();
      }
      kubeRay.ifPresent(KubeRayOperator::close);
      if (cluster != null) {
        cluster.close();
      }
    }
  }

  private static long positive(String option, String value) {
    try {
      long number = Long.parseLong(value);
      if (number > 0) {
        return number;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        option + ": expected a whole number above 0, got '" + value + "'");
  }

  /** A TCP port from {@code min} (0 picks a free one) to 65535. */
  private static int port(String option, String value, int min) {
    try {
      int port = Integer.parseInt(value);
      if (port >= min && port <= 65535) {
        return port;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        option + ": expected a port from " + min + " to 65535, got '" + value + "'");
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
