package dev.berth.local;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperationsBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The real JobSet controller (kubernetes-sigs/jobset), built by scripts/jobset-binary.sh from the
 * pinned source, with the same tag's CRD: it creates a JobSet's child Jobs, suspends and resumes
 * them with the JobSet, and marks the JobSet Completed or Failed. Its JobSet webhooks (defaulting
 * and validation) are served with a certificate of a CA made here and registered by URL; its pod
 * webhooks, which only exclusive placement needs, are not registered.
 */
public final class JobSetController implements ControllerWebhooks.Served {
  /** Pinned in scripts/jobset-binary.sh too, which builds it. */
  public static final String VERSION = "0.12.0";

  /**
   * The user the controller acts as: its service account, as JobSet's manifests install it
   * (namespace jobset-system, name prefix jobset-). Its child Jobs then reach Berth's webhooks as
   * in a cluster, not as the admin, which is also the operator's identity here.
   */
  public static final String IDENTITY =
      "system:serviceaccount:jobset-system:jobset-controller-manager";

  static final String MUTATING = "berth-local-jobset-mutating";
  static final String VALIDATING = "berth-local-jobset-validating";

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
    return Optional.of(
        ControllerWebhooks.startServing(
            "jobset",
            dir().resolve("jobset-controller"),
            "config.jobset.x-k8s.io/v1alpha1",
            ServiceAccountKubeconfig.write(
                kubeconfig, IDENTITY, logDir.resolve("jobset.kubeconfig")),
            logDir,
            process -> new JobSetController(admin, process)));
  }

  /** Its defaulting and validating JobSet webhooks, as its own manifests register them. */
  @Override
  public void register(int port, String caBundle) {
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
                .withWebhooks(
                    ControllerWebhooks.mutating(
                            "mjobset.kb.io",
                            port,
                            "/mutate-jobset-x-k8s-io-v1alpha2-jobset",
                            caBundle)
                        .withRules(rule.withOperations("CREATE").build())
                        .build())
                .build())
        .serverSideApply();
    admin
        .resource(
            new ValidatingWebhookConfigurationBuilder()
                .withNewMetadata()
                .withName(VALIDATING)
                .endMetadata()
                .withWebhooks(
                    ControllerWebhooks.validating(
                            "vjobset.kb.io",
                            port,
                            "/validate-jobset-x-k8s-io-v1alpha2-jobset",
                            caBundle)
                        .withRules(rule.withOperations("CREATE", "UPDATE").build())
                        .build())
                .build())
        .serverSideApply();
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
    ControllerWebhooks.unregister(admin, MUTATING, VALIDATING);
    process.close();
  }
}
