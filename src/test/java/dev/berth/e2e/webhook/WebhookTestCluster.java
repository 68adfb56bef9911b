package dev.berth.e2e.webhook;

import dev.berth.local.EmbeddedApiServer;
import dev.berth.webhook.ChartWebhooks;
import dev.berth.webhook.authz.CachedGrants;
import dev.berth.webhook.authz.SubjectAccessReviewGrants;
import dev.berth.webhook.mutation.InformerLocalQueueLookup;
import dev.berth.webhook.server.BerthWebhooks;
import dev.berth.webhook.server.WebhookServer;
import dev.berth.webhook.tls.CertificateAuthority;
import dev.berth.webhook.tls.ServingKeyManager;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A kube-apiserver of its own with Berth's webhooks registered and served from this JVM on
 * 127.0.0.1. Separate from the shared TestApiServer: registered webhooks change what the API server
 * does for every client, so the other suites must not see them.
 *
 * <p>The admin certificate's user ({@value #OPERATOR}) is configured as the operator identity;
 * {@value #USER} is an ordinary user reached by impersonation.
 */
public final class WebhookTestCluster {
  /** CN of kube-api-test's admin client certificate; the webhook treats it as the operator. */
  public static final String OPERATOR = "kubeapitest";

  public static final String USER = "alice";
  public static final String NAMESPACE = "webhook-e2e";

  private static WebhookTestCluster instance;

  private final EmbeddedApiServer apiServer;
  private final String kubeconfig;
  private final KubernetesClient admin;
  private final KubernetesClient user;
  private final CertificateAuthority ca;
  private final ServingKeyManager keys;
  private final WebhookServer webhook;
  private final InformerLocalQueueLookup localQueues;
  private final HandlerTimes handlerTimes = new HandlerTimes();
  private final List<KubernetesClient> impersonated = new java.util.ArrayList<>();
  private final int port;

  public static synchronized WebhookTestCluster get() {
    if (instance == null) {
      instance = new WebhookTestCluster();
      Runtime.getRuntime().addShutdownHook(new Thread(instance::stop, "webhook-test-cluster-stop"));
    }
    return instance;
  }

  private WebhookTestCluster() {
    long started = System.nanoTime();
    apiServer = EmbeddedApiServer.start();
    kubeconfig = apiServer.kubeconfig();
    admin = apiServer.client();
    installCrds();
    bindUserAsClusterAdmin();
    Config impersonating = Config.fromKubeconfig(kubeconfig);
    impersonating.setImpersonateUsername(USER);
    impersonating.setImpersonateGroups("system:authenticated");
    user = new KubernetesClientBuilder().withConfig(impersonating).build();
    admin
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .serverSideApply();

    ca = CertificateAuthority.generate("berth-e2e-webhook-ca", Duration.ofDays(1));
    keys =
        new ServingKeyManager(
            ca.issue(List.of("localhost"), List.of("127.0.0.1"), Duration.ofDays(1)));
    localQueues = new InformerLocalQueueLookup(admin);
    // Grants asked of this API server as the operator's runtime asks them (WebhookRuntime).
    CachedGrants grants =
        new CachedGrants(new SubjectAccessReviewGrants(admin), CachedGrants.DEFAULT_TTL);
    webhook =
        new WebhookServer(
            handlerTimes.wrap(BerthWebhooks.routes(OPERATOR, localQueues, grants)), keys, 16);
    try {
      port = webhook.start("127.0.0.1", 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    register();
    awaitWebhooksActive();
    System.out.printf(
        "[berth-webhook-test] kube-apiserver + webhooks on 127.0.0.1:%d ready in %d ms%n",
        port, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
  }

  /** Admin client; its user is the operator identity. */
  public KubernetesClient admin() {
    return admin;
  }

  /** A non-operator user with cluster-admin RBAC: only the webhook stands in its way. */
  public String kubeconfig() {
    return kubeconfig;
  }

  public KubernetesClient user() {
    return user;
  }

  /**
   * A client acting as {@code username} (group system:authenticated) with no RBAC of its own: the
   * test binds it to the roles it is meant to have. Closed with the cluster.
   */
  public synchronized KubernetesClient impersonating(String username) {
    Config config = Config.fromKubeconfig(kubeconfig);
    config.setImpersonateUsername(username);
    config.setImpersonateGroups("system:authenticated");
    // One answer per request: a refused write must not be retried into a different outcome.
    config.setRequestRetryBackoffLimit(0);
    KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
    impersonated.add(client);
    return client;
  }

  public int webhookPort() {
    return port;
  }

  public CertificateAuthority ca() {
    return ca;
  }

  HandlerTimes handlerTimes() {
    return handlerTimes;
  }

  /** The serving key manager, for tests that rotate the certificate under the API server. */
  public ServingKeyManager keys() {
    return keys;
  }

  public InformerLocalQueueLookup localQueues() {
    return localQueues;
  }

  public void ensureNamespace(String name) {
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .serverSideApply();
  }

  private void installCrds() {
    List<CustomResourceDefinition> crds = new java.util.ArrayList<>(EmbeddedApiServer.berthCrds());
    crds.add(jobSetCrd());
    // KubeRay's APIs (the RayJob and RayCluster stand-ins local mode installs), no operator.
    for (String kind : List.of("rayjob", "raycluster")) {
      crds.add(EmbeddedApiServer.crd("local/" + kind + "-crd.yaml"));
    }
    crds.add(
        schemalessCrd("leaderworkerset.x-k8s.io", "v1", "LeaderWorkerSet", "leaderworkersets"));
    apiServer.install(crds);
  }

  /** JobSet's API without its controller: enough for the webhook to see JobSets being written. */
  private static CustomResourceDefinition jobSetCrd() {
    return schemalessCrd("jobset.x-k8s.io", "v1alpha2", "JobSet", "jobsets");
  }

  /** A namespaced API of any shape for {@code kind}, served with no controller behind it. */
  static CustomResourceDefinition schemalessCrd(
      String group, String version, String kind, String plural) {
    return new CustomResourceDefinitionBuilder()
        .withNewMetadata()
        .withName(plural + "." + group)
        .endMetadata()
        .withNewSpec()
        .withGroup(group)
        .withScope("Namespaced")
        .withNewNames()
        .withKind(kind)
        .withPlural(plural)
        .withSingular(kind.toLowerCase(java.util.Locale.ROOT))
        .endNames()
        .addNewVersion()
        .withName(version)
        .withServed(true)
        .withStorage(true)
        .withNewSchema()
        .withNewOpenAPIV3Schema()
        .withType("object")
        .withXKubernetesPreserveUnknownFields(true)
        .endOpenAPIV3Schema()
        .endSchema()
        .endVersion()
        .endSpec()
        .build();
  }

  private void bindUserAsClusterAdmin() {
    admin
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName("webhook-e2e-" + USER)
                .endMetadata()
                .withNewRoleRef()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("ClusterRole")
                .withName("cluster-admin")
                .endRoleRef()
                .addNewSubject()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("User")
                .withName(USER)
                .endSubject()
                .build())
        .serverSideApply();
  }

  /**
   * Registers the chart's webhook configurations (default values, rendered by helm), pointed at our
   * URL and trusting our CA: the suites run under exactly what {@code helm install} registers.
   */
  private void register() {
    ChartWebhooks.render().onLoopback(port).withCaBundle(ca.certificatePem()).install(admin);
  }

  /** The API server picks up webhook configurations asynchronously; wait until both bite. */
  private void awaitWebhooksActive() {
    String probe =
        """
        apiVersion: berth.dev/v1beta1
        kind: ClusterQueue
        metadata: {name: webhook-probe}
        spec: {namespaceSelector: {matchExpressions: [{key: a, operator: Is}]}}
        """;
    // Active once the validating webhook denies the invalid probe (a dry run stores nothing).
    org.awaitility.Awaitility.await("webhooks active")
        .atMost(java.time.Duration.ofSeconds(60))
        .pollInterval(java.time.Duration.ofMillis(200))
        .until(
            () -> {
              try {
                admin
                    .resource(Serialization.unmarshal(probe, GenericKubernetesResource.class))
                    .dryRun()
                    .create();
                return false;
              } catch (KubernetesClientException e) {
                return e.getMessage().contains("denied the request");
              }
            });
  }

  private synchronized void stop() {
    webhook.stop();
    localQueues.close();
    impersonated.forEach(KubernetesClient::close);
    user.close();
    // closes the admin client too
    apiServer.close();
  }
}
