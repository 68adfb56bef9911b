package dev.berth.e2e.plane;

import dev.berth.local.EmbeddedApiServer;
import dev.berth.local.LoggedProcess;
import io.fabric8.kubernetes.api.model.Config;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperations;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ServiceReference;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ServiceReferenceBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceConversionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The real Kueue manager ({@code sigs.k8s.io/kueue} {@link #VERSION}, built by
 * scripts/kueue-binary.sh) on a {@link ControlPlane}, installed as its release manifests install
 * it: its CRDs with their conversion webhooks, its webhook configurations pointing at the Service
 * {@code kueue-webhook-service} in {@code kueue-system}, and its own certificate management ({@code
 * internalCertManagement}, Kueue's default), which makes a CA, serves a certificate for {@code
 * kueue-webhook-service.kueue-system.svc} (stored in a Secret, which the harness writes into its
 * certificate directory as the kubelet does the Secret volume of Kueue's Deployment) and writes the
 * caBundles itself. The API server reaches the Service through an EndpointSlice naming this
 * machine's address, as it reaches any aggregated or webhook Service (the suite's API servers route
 * to endpoints).
 *
 * <p>What is not as in a cluster, and why: only the webhooks of the integration it runs ({@code
 * batch/job}) and of Kueue's own kinds are registered (the manifests list every integration's, and
 * a registered webhook that nothing serves would refuse, with failurePolicy Fail, every pod and
 * Deployment); its visibility server is off (feature gate {@code VisibilityOnDemand}), because with
 * internal certificates it writes them to {@code /visibility}, a directory at the file system's
 * root; its metrics endpoint is off (nothing scrapes it). It runs with the admin's kubeconfig
 * impersonating its own service account, in group {@code system:masters} rather than bound to its
 * release's ClusterRole, so Berth's webhooks meet it as another controller, never as the Berth
 * operator.
 */
public final class KueueManager implements AutoCloseable {
  /** Pinned in scripts/kueue-binary.sh too, which builds it. */
  public static final String VERSION = "0.17.0";

  public static final String NAMESPACE = "kueue-system";
  public static final String IDENTITY =
      "system:serviceaccount:kueue-system:kueue-controller-manager";

  static final String SERVICE = "kueue-webhook-service";
  static final String SECRET = "kueue-webhook-server-cert";
  static final String MUTATING = "kueue-mutating-webhook-configuration";
  static final String VALIDATING = "kueue-validating-webhook-configuration";
  private static final String GROUP = "kueue.x-k8s.io";

  /** The CRDs Kueue's manifests give a conversion webhook (its rotator writes their caBundle). */
  private static final Set<String> CONVERTED =
      Set.of("localqueues", "clusterqueues", "cohorts", "workloads", "multikueueclusters");

  private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

  private final KubernetesClient admin;
  private final LoggedProcess process;
  private final SecretVolume certificates;

  private KueueManager(KubernetesClient admin, LoggedProcess process, SecretVolume certificates) {
    this.admin = admin;
    this.process = process;
    this.certificates = certificates;
  }

  /** Whether scripts/kueue-binary.sh has installed the manager and its manifests. */
  public static boolean built() {
    return Files.isExecutable(dir().resolve("kueue-manager"))
        && Files.isRegularFile(dir().resolve("kueue-crds.yaml"))
        && Files.isRegularFile(dir().resolve("kueue-webhooks.yaml"));
  }

  /**
   * Installs Kueue on the plane and starts its manager with a Configuration of the harness's
   * (namespace, ports, certificates, {@code batch/job}) merged with {@code configuration}, the
   * cluster's own settings (YAML keys of Kueue's Configuration, e.g. {@code
   * managedJobsNamespaceSelector}); returns once it reports ready (its certificates made and
   * injected, its webhook server listening).
   */
  public static KueueManager start(ControlPlane plane, String configuration) throws IOException {
    if (!built()) {
      throw new IllegalStateException(
          "Kueue v"
              + VERSION
              + " is not built under "
              + dir()
              + ": run scripts/kueue-binary.sh (it builds sigs.k8s.io/kueue from the Go module"
              + " proxy)");
    }
    KubernetesClient admin = plane.client();
    int webhookPort = freePort();
    int probePort = freePort();
    admin
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .serverSideApply();
    installCrds(admin);
    route(admin, webhookPort);
    register(admin);
    Path logDir = plane.logDir();
    Path kubeconfig = logDir.resolve("kueue.kubeconfig");
    Files.writeString(kubeconfig, impersonating(plane.kubeconfig()), StandardCharsets.UTF_8);
    Path certs = Files.createDirectories(logDir.resolve("kueue-certs"));
    Path config = logDir.resolve("kueue-configuration.yaml");
    Files.writeString(
        config,
        configuration(webhookPort, probePort, certs, configuration),
        StandardCharsets.UTF_8);
    LoggedProcess process =
        LoggedProcess.start(
            "kueue-manager",
            List.of(
                dir().resolve("kueue-manager").toString(),
                "--kubeconfig=" + kubeconfig,
                "--config=" + config),
            logDir.resolve("kueue-manager.log"));
    KueueManager kueue = new KueueManager(admin, process, SecretVolume.project(admin, certs));
    try {
      kueue.awaitReady(probePort);
    } catch (RuntimeException e) {
      kueue.close();
      throw e;
    }
    return kueue;
  }

  private static void installCrds(KubernetesClient admin) throws IOException {
    List<CustomResourceDefinition> crds = new ArrayList<>();
    try (InputStream in = Files.newInputStream(dir().resolve("kueue-crds.yaml"))) {
      for (HasMetadata o : admin.load(in).items()) {
        CustomResourceDefinition crd = (CustomResourceDefinition) o;
        if (CONVERTED.contains(crd.getSpec().getNames().getPlural())) {
          // Kueue's kustomize patch (config/components/crd/patches/webhook_in_*.yaml).
          crd.getSpec()
              .setConversion(
                  new CustomResourceConversionBuilder()
                      .withStrategy("Webhook")
                      .withNewWebhook()
                      .withConversionReviewVersions("v1")
                      .withNewClientConfig()
                      .withNewService()
                      .withNamespace(NAMESPACE)
                      .withName(SERVICE)
                      .withPath("/convert")
                      .withPort(443)
                      .endService()
                      .endClientConfig()
                      .endWebhook()
                      .build());
        }
        crds.add(crd);
      }
    }
    EmbeddedApiServer.install(admin, crds);
  }

  /**
   * Its Service, the EndpointSlice an EndpointSlice controller would write for a pod listening on
   * this machine's address, and the empty Secret its certificate rotator fills.
   */
  private static void route(KubernetesClient admin, int webhookPort) throws IOException {
    admin
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName(SECRET)
                .withNamespace(NAMESPACE)
                .endMetadata()
                .build())
        .serverSideApply();
    admin
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName(SERVICE)
                .withNamespace(NAMESPACE)
                .endMetadata()
                .withNewSpec()
                .addNewPort()
                .withName("https")
                .withPort(443)
                .withNewTargetPort(webhookPort)
                .endPort()
                .endSpec()
                .build())
        .serverSideApply();
    admin
        .resource(
            new EndpointSliceBuilder()
                .withNewMetadata()
                .withName(SERVICE + "-local")
                .withNamespace(NAMESPACE)
                .addToLabels("kubernetes.io/service-name", SERVICE)
                .endMetadata()
                .withAddressType("IPv4")
                .addNewEndpoint()
                .withAddresses(HostAddress.ipv4())
                .withNewConditions()
                .withReady(true)
                .endConditions()
                .endEndpoint()
                .addNewPort()
                .withName("https")
                .withPort(webhookPort)
                .withProtocol("TCP")
                .endPort()
                .build())
        .serverSideApply();
  }

  /**
   * Its release's webhook configurations (kustomize's names), each webhook pointed at its Service;
   * only those of Kueue's own kinds and of batch/v1 Jobs (see the class comment).
   */
  private static void register(KubernetesClient admin) throws IOException {
    List<HasMetadata> manifests;
    try (InputStream in = Files.newInputStream(dir().resolve("kueue-webhooks.yaml"))) {
      manifests = admin.load(in).items();
    }
    for (HasMetadata o : manifests) {
      if (o instanceof MutatingWebhookConfiguration m) {
        List<MutatingWebhook> kept = new ArrayList<>();
        for (MutatingWebhook w : m.getWebhooks()) {
          if (served(w.getRules())) {
            w.getClientConfig().setService(service(w.getClientConfig().getService()));
            kept.add(w);
          }
        }
        m.setWebhooks(kept);
        m.setMetadata(new ObjectMeta());
        m.getMetadata().setName(MUTATING);
        admin.resource(m).serverSideApply();
      } else if (o instanceof ValidatingWebhookConfiguration v) {
        List<ValidatingWebhook> kept = new ArrayList<>();
        for (ValidatingWebhook w : v.getWebhooks()) {
          if (served(w.getRules())) {
            w.getClientConfig().setService(service(w.getClientConfig().getService()));
            kept.add(w);
          }
        }
        v.setWebhooks(kept);
        v.setMetadata(new ObjectMeta());
        v.getMetadata().setName(VALIDATING);
        admin.resource(v).serverSideApply();
      }
    }
  }

  private static boolean served(List<RuleWithOperations> rules) {
    return rules.stream()
        .allMatch(
            r ->
                r.getApiGroups().equals(List.of(GROUP))
                    || (r.getApiGroups().equals(List.of("batch"))
                        && r.getResources().equals(List.of("jobs"))));
  }

  private static ServiceReference service(ServiceReference manifest) {
    return new ServiceReferenceBuilder()
        .withNamespace(NAMESPACE)
        .withName(SERVICE)
        .withPath(manifest.getPath())
        .withPort(443)
        .build();
  }

  /**
   * The harness's part of the Configuration, with {@code cluster}'s top-level keys on top: no
   * leader election (one manager), probes and webhooks on free ports, certificates under the log
   * directory, only the Job integration.
   */
  @SuppressWarnings("unchecked")
  static String configuration(int webhookPort, int probePort, Path certDir, String cluster) {
    Map<String, Object> config =
        Serialization.unmarshal(
            """
            apiVersion: config.kueue.x-k8s.io/v1beta2
            kind: Configuration
            namespace: %s
            leaderElection:
              leaderElect: false
            health:
              healthProbeBindAddress: 127.0.0.1:%d
            metrics:
              bindAddress: "0"
            webhook:
              port: %d
              certDir: %s
            internalCertManagement:
              enable: true
              webhookServiceName: %s
              webhookSecretName: %s
            featureGates:
              VisibilityOnDemand: false
            integrations:
              frameworks: [batch/job]
            """
                .formatted(NAMESPACE, probePort, webhookPort, certDir, SERVICE, SECRET),
            LinkedHashMap.class);
    if (cluster != null && !cluster.isBlank()) {
      config.putAll(Serialization.unmarshal(cluster, LinkedHashMap.class));
    }
    return Serialization.asYaml(config);
  }

  /** The admin's kubeconfig, its user impersonating Kueue's service account. */
  static String impersonating(String adminKubeconfig) {
    Config config = Serialization.unmarshal(adminKubeconfig, Config.class);
    config.getUsers().get(0).getUser().setAs(IDENTITY);
    config
        .getUsers()
        .get(0)
        .getUser()
        .setAsGroups(List.of("system:serviceaccounts", "system:masters", "system:authenticated"));
    return Serialization.asYaml(config);
  }

  /** Ready once its certificates are injected and its webhook server listens. */
  private void awaitReady(int probePort) {
    process.awaitReady(probePort, READY_TIMEOUT);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static Path dir() {
    String base = System.getenv("KUBE_API_TEST_DIR");
    return Path.of(base != null ? base : System.getProperty("user.home") + "/.kubeapitest")
        .resolve("kueue")
        .resolve("v" + VERSION);
  }

  public Path log() {
    return process.log();
  }

  public void checkAlive() {
    process.checkAlive();
  }

  @Override
  public void close() {
    // Unregistered first: with failurePolicy Fail, Job writes would fail once it is gone.
    try {
      var registrations = admin.admissionRegistration().v1();
      registrations.mutatingWebhookConfigurations().withName(MUTATING).delete();
      registrations.validatingWebhookConfigurations().withName(VALIDATING).delete();
    } catch (RuntimeException apiServerGone) {
      // Stopping with the API server: nothing is left to write Jobs.
    }
    process.close();
    certificates.close();
  }

  /**
   * The kubelet's part: Kueue's manifests mount the Secret its certificate rotator writes as a
   * volume at {@code webhook.certDir}, and the rotator waits for the files to appear there (then
   * serves them). Here an informer on the Secret writes each key to a file of that name, on every
   * change, as the kubelet refreshes a Secret volume.
   */
  private static final class SecretVolume implements AutoCloseable {
    private final SharedIndexInformer<Secret> informer;

    private SecretVolume(SharedIndexInformer<Secret> informer) {
      this.informer = informer;
    }

    static SecretVolume project(KubernetesClient admin, Path dir) {
      ResourceEventHandler<Secret> write =
          new ResourceEventHandler<>() {
            @Override
            public void onAdd(Secret secret) {
              write(secret, dir);
            }

            @Override
            public void onUpdate(Secret old, Secret secret) {
              write(secret, dir);
            }

            @Override
            public void onDelete(Secret secret, boolean unknownFinalState) {}
          };
      return new SecretVolume(
          admin.secrets().inNamespace(NAMESPACE).withName(SECRET).inform(write, 0));
    }

    private static void write(Secret secret, Path dir) {
      if (secret.getData() == null) {
        return;
      }
      try {
        for (Map.Entry<String, String> e : secret.getData().entrySet()) {
          // Written beside, then moved: the rotator and the webhook server never read half a file.
          Path next = dir.resolve("." + e.getKey() + ".next");
          Files.write(next, Base64.getDecoder().decode(e.getValue()));
          Files.move(
              next,
              dir.resolve(e.getKey()),
              StandardCopyOption.REPLACE_EXISTING,
              StandardCopyOption.ATOMIC_MOVE);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("writing Kueue's certificates to " + dir, e);
      }
    }

    @Override
    public void close() {
      informer.close();
    }
  }
}
