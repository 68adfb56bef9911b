package dev.berth.operator.local;

import dev.berth.operator.BerthOperator;
import dev.berth.operator.OperatorConfig;
import dev.berth.webhook.WebhookRegistrations;
import dev.berth.webhook.WebhookRuntime;
import dev.berth.webhook.WebhookSettings;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfigBuilder;
import java.util.List;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Berth on a machine with no cluster: an embedded API server, the CRDs, the operator, the samples
 * applied, and a stream of what is admitted and why the rest waits. Ctrl-C stops it all.
 */
public final class LocalMode {
  private LocalMode() {}

  /** Options: --samples DIR (default ./samples), --run-seconds N (how long a started Job runs). */
  public static void run(String[] args) throws Exception {
    PrintStream out = System.out;
    Path samples = Path.of(option(args, "--samples", "samples"));
    long runSeconds = Long.parseLong(option(args, "--run-seconds", "20"));
    Path kubeconfig = Path.of(option(args, "--kubeconfig-out", "target/berth-local/kubeconfig")).toAbsolutePath();

    out.println("berth: no cluster given; starting local mode (embedded kube-apiserver and etcd)");
    LocalCluster cluster = LocalCluster.start(kubeconfig);
    cluster.client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("berth-system").endMetadata().build()).serverSideApply();
    WebhookRuntime webhooks = startWebhooks(cluster, out);
    BerthOperator operator =
        BerthOperator.start(
            cluster.client(),
            new OperatorConfig("berth-system", false, "berth-leader", 8080, false, 0, "berth-operator", false, false));
    out.println("berth: operator running; metrics on http://127.0.0.1:" + operator.metricsPort() + "/metrics");
    out.println("berth: use kubectl with   export KUBECONFIG=" + kubeconfig);
    out.println("berth: started Jobs are marked Complete after " + runSeconds + "s (there are no nodes)");
    LocalKubelet kubelet = new LocalKubelet(cluster.client(), runSeconds);
    AdmissionFeed feed = new AdmissionFeed(cluster.client(), out);
    if (Files.isDirectory(samples)) {
      out.println("berth: applying " + samples.toAbsolutePath());
      new SampleApplier(cluster.client(), out).apply(samples);
    } else {
      out.println("berth: no samples at " + samples.toAbsolutePath() + "; apply your own with kubectl");
    }
    out.println("berth: watching admissions; Ctrl-C stops everything");

    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      out.println("berth: stopping");
      feed.close();
      kubelet.close();
      operator.close();
      webhooks.close();
      cluster.close();
      stopped.countDown();
    }, "berth-local-stop"));
    stopped.await();
  }

  /**
   * The webhooks, as in a cluster but on 127.0.0.1: registered with the API server by URL, with a
   * self-signed CA in berth-system. The embedded server's admin user stands for the operator.
   */
  private static WebhookRuntime startWebhooks(LocalCluster cluster, PrintStream out) throws Exception {
    WebhookSettings settings =
        WebhookSettings.fromEnvironment(System.getenv()).onLoopback(LocalCluster.ADMIN_USER);
    var registrations =
        new WebhookRegistrations(
            path -> new WebhookClientConfigBuilder().withUrl("https://127.0.0.1:" + settings.port() + path).build(),
            List.of("kube-system", "berth-system"));
    var admission = cluster.client().admissionRegistration().v1();
    admission.validatingWebhookConfigurations().resource(registrations.validating()).serverSideApply();
    admission.mutatingWebhookConfigurations().resource(registrations.mutating()).serverSideApply();
    WebhookRuntime webhooks = new WebhookRuntime(settings, cluster.client());
    out.println("berth: webhooks on https://127.0.0.1:" + webhooks.start() + " (validating and mutating)");
    return webhooks;
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
