package dev.berth.local;

import dev.berth.webhook.tls.CertificateAuthority;
import dev.berth.webhook.tls.KeyMaterial;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperationsBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfigBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * The real JobSet controller (kubernetes-sigs/jobset), built by scripts/jobset-binary.sh from the
 * pinned source, with the same tag's CRD: it creates a JobSet's child Jobs, suspends and resumes
 * them with the JobSet, and marks the JobSet Completed or Failed. Its JobSet webhooks (defaulting
 * and validation) are served with a certificate of a CA made here and registered by URL; its pod
 * webhooks, which only exclusive placement needs, are not registered.
 */
public final class JobSetController implements AutoCloseable {
  /** Pinned in scripts/jobset-binary.sh too, which builds it. */
  public static final String VERSION = "0.12.0";

  static final String MUTATING = "berth-local-jobset-mutating";
  static final String VALIDATING = "berth-local-jobset-validating";
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private final KubernetesClient admin;
  private final LoggedProcess process;

  private JobSetController(KubernetesClient admin, LoggedProcess process) {
    this.admin = admin;
    this.process = process;
  }

  /** Whether scripts/jobset-binary.sh has installed the controller and its CRD. */
  public static boolean built() {
    return Files.isExecutable(dir().resolve("jobset-controller"))
        && Files.isRegularFile(dir().resolve("jobset-crd.yaml"));
  }

  /**
   * The controller if it is built (see {@link #built()}), started and serving; empty if not.
   * Installs the upstream CRD (replacing a stand-in one) first.
   */
  static Optional<JobSetController> startIfBuilt(
      KubernetesClient admin, Path kubeconfig, Path logDir) throws IOException {
    if (!built()) {
      return Optional.empty();
    }
    CustomResourceDefinition crd =
        Serialization.unmarshal(
            Files.readString(dir().resolve("jobset-crd.yaml")), CustomResourceDefinition.class);
    EmbeddedApiServer.install(admin, List.of(crd));
    Path certs = logDir.resolve("jobset-certs");
    Files.createDirectories(certs);
    CertificateAuthority ca =
        CertificateAuthority.generate("berth-local-jobset-ca", Duration.ofDays(30));
    KeyMaterial serving = ca.issue(List.of("localhost"), List.of("127.0.0.1"), Duration.ofDays(30));
    Files.writeString(
        certs.resolve("tls.crt"),
        CertificateAuthority.Pem.encode(serving.leaf()),
        StandardCharsets.UTF_8);
    Files.writeString(
        certs.resolve("tls.key"),
        CertificateAuthority.Pem.encodeKey(serving.key()),
        StandardCharsets.UTF_8);
    int webhookPort = freePort();
    int probePort = freePort();
    Path config = logDir.resolve("jobset-controller.yaml");
    // Ports picked free, no leader election (one controller), no metrics endpoint (nothing
    // scrapes it), and no cert rotation of its own: it serves the certificate made above.
    Files.writeString(
        config,
        """
        apiVersion: config.jobset.x-k8s.io/v1alpha1
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
            .formatted(webhookPort, certs, probePort),
        StandardCharsets.UTF_8);
    LoggedProcess process =
        LoggedProcess.start(
            "jobset-controller",
            List.of(
                dir().resolve("jobset-controller").toString(),
                "--kubeconfig=" + kubeconfig,
                "--config=" + config),
            logDir.resolve("jobset-controller.log"));
    JobSetController controller = new JobSetController(admin, process);
    try {
      controller.awaitReady(probePort);
      controller.register(webhookPort, ca.certificatePem());
    } catch (RuntimeException e) {
      controller.close();
      throw e;
    }
    return Optional.of(controller);
  }

  /** Its readiness endpoint answers once its webhook server listens. */
  private void awaitReady(int probePort) {
    process.awaitReady(probePort, READY_TIMEOUT);
  }

  /** Its defaulting and validating JobSet webhooks, as its own manifests register them. */
  private void register(int port, String caPem) {
    String caBundle = Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.UTF_8));
    var rule =
        new RuleWithOperationsBuilder()
            .withApiGroups("jobset.x-k8s.io")
            .withApiVersions("v1alpha2")
            .withResources("jobsets");
    admin
        .resource(
            new MutatingWebhookConfigurationBuilder()
                .withNewMetadata()
                .withName(MUTATING)
                .endMetadata()
                .addNewWebhook()
                .withName("mjobset.kb.io")
                .withAdmissionReviewVersions("v1")
                .withClientConfig(url(port, "/mutate-jobset-x-k8s-io-v1alpha2-jobset", caBundle))
                .withFailurePolicy("Fail")
                .withSideEffects("None")
                .withRules(rule.withOperations("CREATE").build())
                .endWebhook()
                .build())
        .serverSideApply();
    admin
        .resource(
            new ValidatingWebhookConfigurationBuilder()
                .withNewMetadata()
                .withName(VALIDATING)
                .endMetadata()
                .addNewWebhook()
                .withName("vjobset.kb.io")
                .withAdmissionReviewVersions("v1")
                .withClientConfig(url(port, "/validate-jobset-x-k8s-io-v1alpha2-jobset", caBundle))
                .withFailurePolicy("Fail")
                .withSideEffects("None")
                .withRules(rule.withOperations("CREATE", "UPDATE").build())
                .endWebhook()
                .build())
        .serverSideApply();
  }

  private static WebhookClientConfig url(int port, String path, String caBundle) {
    return new WebhookClientConfigBuilder()
        .withUrl("https://127.0.0.1:" + port + path)
        .withCaBundle(caBundle)
        .build();
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static Path dir() {
    return Binaries.cacheDir().resolve("jobset").resolve("v" + VERSION);
  }

  public Path log() {
    return process.log();
  }

  void checkAlive() {
    process.checkAlive();
  }

  @Override
  public void close() {
    // Unregistered first: with failurePolicy Fail, JobSet writes would fail once it is gone.
    try {
      admin
          .admissionRegistration()
          .v1()
          .mutatingWebhookConfigurations()
          .withName(MUTATING)
          .delete();
      admin
          .admissionRegistration()
          .v1()
          .validatingWebhookConfigurations()
          .withName(VALIDATING)
          .delete();
    } catch (RuntimeException apiServerGone) {
      // Stopping with the API server: nothing is left to write JobSets.
    }
    process.close();
  }
}
