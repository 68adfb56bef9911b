package dev.berth.local;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperationsBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The real LeaderWorkerSet controller (kubernetes-sigs/lws), built by scripts/lws-binary.sh from
 * the pinned source, with the same tag's CRDs: it makes each LWS's leader StatefulSet, a worker
 * StatefulSet per leader pod, scales them with {@code spec.replicas} and rolls them. Its webhooks
 * are served with a certificate of a CA made here and registered by URL: the LWS defaulting and
 * validation, and its pod defaulting, which gives each pod its group and worker index (the
 * controller needs them); its pod validation checks nothing and is not registered.
 */
public final class LwsController implements ControllerWebhooks.Served {
  /** Pinned in scripts/lws-binary.sh too, which builds it. */
  public static final String VERSION = "0.10.0";

  static final String MUTATING = "berth-local-lws-mutating";
  static final String VALIDATING = "berth-local-lws-validating";
  private static final String LWS_CRD = "leaderworkerset.x-k8s.io_leaderworkersets.yaml";

  /**
   * The user the controller acts as: its service account, as LWS's manifests install it (namespace
   * lws-system, name prefix lws-). Its StatefulSets then reach Berth's webhooks as in a cluster,
   * not as the admin, which is also the operator's identity here.
   */
  public static final String IDENTITY = "system:serviceaccount:lws-system:lws-controller-manager";

  private final KubernetesClient admin;
  private final LoggedProcess process;

  private LwsController(KubernetesClient admin, LoggedProcess process) {
    this.admin = admin;
    this.process = process;
  }

  /** Whether scripts/lws-binary.sh has installed the controller and its CRDs. */
  public static boolean built() {
    return Files.isExecutable(dir().resolve("lws-controller"))
        && Files.isRegularFile(dir().resolve("crds").resolve(LWS_CRD));
  }

  /** Where scripts/lws-binary.sh installs it, for messages. */
  public static Path dir() {
    return Binaries.cacheDir().resolve("lws").resolve("v" + VERSION);
  }

  /**
   * Its upstream CRDs (LeaderWorkerSet, the stand-in's name, and the DisaggregatedSet kinds); empty
   * if it is not built. Installed before kube-controller-manager starts, its garbage collector
   * watches LeaderWorkerSets from the start: it looks for new kinds only every 30 s, and until then
   * a deleted LWS's StatefulSets and pods run on.
   */
  public static List<CustomResourceDefinition> crds() throws IOException {
    if (!built()) {
      return List.of();
    }
    return EmbeddedApiServer.crdFiles(dir().resolve("crds"));
  }

  /**
   * The controller if it is built (see {@link #built()}), started and serving; empty if not.
   * Installs its upstream CRDs (replacing the stand-in LeaderWorkerSet one) first: the manager
   * watches the DisaggregatedSet kinds too and would not start without them.
   */
  public static Optional<LwsController> startIfBuilt(
      KubernetesClient admin, Path kubeconfig, Path logDir) throws IOException {
    if (!built()) {
      return Optional.empty();
    }
    EmbeddedApiServer.install(admin, crds());
    Files.createDirectories(logDir);
    return Optional.of(
        ControllerWebhooks.startServing(
            "lws",
            dir().resolve("lws-controller"),
            "config.lws.x-k8s.io/v1alpha1",
            ServiceAccountKubeconfig.write(kubeconfig, IDENTITY, logDir.resolve("lws.kubeconfig")),
            logDir,
            process -> new LwsController(admin, process)));
  }

  /**
   * Its LWS and pod webhooks, as its own manifests register them (the pod one only for LWS pods).
   */
  @Override
  public void register(int port, String caBundle) {
    var lws =
        new RuleWithOperationsBuilder()
            .withApiGroups("leaderworkerset.x-k8s.io")
            .withApiVersions("v1")
            .withResources("leaderworkersets")
            .withOperations("CREATE", "UPDATE")
            .build();
    String lwsPath = "leaderworkerset-x-k8s-io-v1-leaderworkerset";
    admin
        .resource(
            new MutatingWebhookConfigurationBuilder()
                .withNewMetadata()
                .withName(MUTATING)
                .endMetadata()
                .withWebhooks(
                    ControllerWebhooks.mutating(
                            "mleaderworkerset.kb.io", port, "/mutate-" + lwsPath, caBundle)
                        .withRules(lws)
                        .build(),
                    ControllerWebhooks.mutating("mpod.kb.io", port, "/mutate--v1-pod", caBundle)
                        .withObjectSelector(
                            new LabelSelectorBuilder()
                                .addNewMatchExpression()
                                .withKey("leaderworkerset.sigs.k8s.io/name")
                                .withOperator("Exists")
                                .endMatchExpression()
                                .build())
                        .withRules(
                            new RuleWithOperationsBuilder()
                                .withApiGroups("")
                                .withApiVersions("v1")
                                .withResources("pods")
                                .withOperations("CREATE")
                                .build())
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
                            "vleaderworkerset.kb.io", port, "/validate-" + lwsPath, caBundle)
                        .withRules(lws)
                        .build())
                .build())
        .serverSideApply();
  }

  public Path log() {
    return process.log();
  }

  void checkAlive() {
    process.checkAlive();
  }

  @Override
  public void close() {
    // Unregistered first: with failurePolicy Fail, LWS and LWS pod writes would fail once it is
    // gone.
    ControllerWebhooks.unregister(admin, MUTATING, VALIDATING);
    process.close();
  }
}
