package dev.berth.local;

import dev.berth.webhook.tls.CertificateAuthority;
import dev.berth.webhook.tls.KeyMaterial;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.function.Function;

/**
 * What the third-party controllers beside the control plane (JobSet, LeaderWorkerSet) share: their
 * webhooks served with a certificate of a CA made here and registered by URL on the loopback
 * address (the harness has no Service to route through), and their readiness endpoint polled until
 * their webhook server listens.
 */
final class ControllerWebhooks {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private ControllerWebhooks() {}

  /**
   * Writes a serving certificate for 127.0.0.1 into {@code certDir} ({@code tls.crt}, {@code
   * tls.key}, as controller-runtime reads them) and returns its CA as a caBundle (base64 PEM).
   */
  static String serve(Path certDir, String caName) throws IOException {
    Files.createDirectories(certDir);
    CertificateAuthority ca = CertificateAuthority.generate(caName, Duration.ofDays(30));
    KeyMaterial serving = ca.issue(List.of("localhost"), List.of("127.0.0.1"), Duration.ofDays(30));
    Files.writeString(
        certDir.resolve("tls.crt"),
        CertificateAuthority.Pem.encode(serving.leaf()),
        StandardCharsets.UTF_8);
    Files.writeString(
        certDir.resolve("tls.key"),
        CertificateAuthority.Pem.encodeKey(serving.key()),
        StandardCharsets.UTF_8);
    return Base64.getEncoder().encodeToString(ca.certificatePem().getBytes(StandardCharsets.UTF_8));
  }

  /** A webhook of the controller's server at {@code path}, trusted through {@code caBundle}. */
  static WebhookClientConfig url(int port, String path, String caBundle) {
    return new WebhookClientConfigBuilder()
        .withUrl("https://127.0.0.1:" + port + path)
        .withCaBundle(caBundle)
        .build();
  }

  /** A mutating webhook of the controller's server at {@code path}: failurePolicy Fail. */
  static MutatingWebhookBuilder mutating(String name, int port, String path, String caBundle) {
    return new MutatingWebhookBuilder()
        .withName(name)
        .withAdmissionReviewVersions("v1")
        .withClientConfig(url(port, path, caBundle))
        .withFailurePolicy("Fail")
        .withSideEffects("None");
  }

  /** A validating webhook of the controller's server at {@code path}: failurePolicy Fail. */
  static ValidatingWebhookBuilder validating(String name, int port, String path, String caBundle) {
    return new ValidatingWebhookBuilder()
        .withName(name)
        .withAdmissionReviewVersions("v1")
        .withClientConfig(url(port, path, caBundle))
        .withFailurePolicy("Fail")
        .withSideEffects("None");
  }

  /** A controller beside the control plane that serves webhooks of its own. */
  interface Served extends AutoCloseable {
    /**
     * Registers its webhooks, served on {@code webhookPort} with a certificate of {@code caBundle}.
     */
    void register(int webhookPort, String caBundle);

    /** Unregisters its webhooks, then stops its process. */
    @Override
    void close();
  }

  /**
   * {@link #start}s the manager, makes the controller of its process ({@code controller}), waits
   * until it is ready and registers its webhooks; if either fails, the controller is closed (its
   * webhooks unregistered, its process stopped) before the failure goes on.
   */
  static <C extends Served> C startServing(
      String name,
      Path binary,
      String configApiVersion,
      Path kubeconfig,
      Path logDir,
      Function<LoggedProcess, C> controller)
      throws IOException {
    Started started = start(name, binary, configApiVersion, kubeconfig, logDir);
    C made = controller.apply(started.process());
    try {
      awaitReady(started.process(), started.probePort());
      made.register(started.webhookPort(), started.caBundle());
    } catch (RuntimeException e) {
      made.close();
      throw e;
    }
    return made;
  }

  /** A controller started: its process, its readiness port, and its webhooks' port and CA. */
  record Started(LoggedProcess process, int probePort, int webhookPort, String caBundle) {}

  /**
   * Starts controller-runtime manager {@code binary} against the API server of {@code kubeconfig},
   * its configuration ({@code configApiVersion}), certificate and log in {@code logDir}, each named
   * after {@code name} ({@code <name>-controller.yaml}, {@code <name>-certs}, {@code
   * <name>-controller.log}). The caller waits for it ({@link #awaitReady}) and registers its
   * webhooks.
   */
  static Started start(
      String name, Path binary, String configApiVersion, Path kubeconfig, Path logDir)
      throws IOException {
    Path certs = logDir.resolve(name + "-certs");
    String caBundle = serve(certs, "berth-local-" + name + "-ca");
    int webhookPort = freePort();
    int probePort = freePort();
    Path config = logDir.resolve(name + "-controller.yaml");
    Files.writeString(
        config,
        managerConfig(configApiVersion, webhookPort, certs, probePort),
        StandardCharsets.UTF_8);
    LoggedProcess process =
        LoggedProcess.start(
            name + "-controller",
            List.of(binary.toString(), "--kubeconfig=" + kubeconfig, "--config=" + config),
            logDir.resolve(name + "-controller.log"));
    return new Started(process, probePort, webhookPort, caBundle);
  }

  /**
   * A controller-runtime manager's configuration file of {@code apiVersion} (JobSet's and LWS's
   * share the shape): ports picked free, no leader election (one controller), no metrics endpoint
   * (nothing scrapes it), and no cert rotation of its own: it serves the certificate of {@link
   * #serve}.
   */
  private static String managerConfig(
      String apiVersion, int webhookPort, Path certDir, int probePort) {
    return """
        apiVersion: %s
        kind: Configuration
        leaderElection:
          leaderElect: false
        internalCertManagement:
          enable: false
        webhook:
          host: 127.0.0.1
          port: %d
          certDir: %s
        metrics:
          bindAddress: "0"
        health:
          healthProbeBindAddress: 127.0.0.1:%d
        """
        .formatted(apiVersion, webhookPort, certDir, probePort);
  }

  /**
   * Removes the controller's webhook configurations, before it stops: with failurePolicy Fail, the
   * writes they match would fail once it is gone.
   */
  static void unregister(KubernetesClient admin, String mutating, String validating) {
    try {
      admin
          .admissionRegistration()
          .v1()
          .mutatingWebhookConfigurations()
          .withName(mutating)
          .delete();
      admin
          .admissionRegistration()
          .v1()
          .validatingWebhookConfigurations()
          .withName(validating)
          .delete();
    } catch (RuntimeException apiServerGone) {
      // Stopping with the API server: nothing is left to write through them.
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** Polls the readiness endpoint, which answers once the controller's webhook server listens. */
  static void awaitReady(LoggedProcess process, int probePort) {
    process.awaitReady(probePort, READY_TIMEOUT);
  }
}
