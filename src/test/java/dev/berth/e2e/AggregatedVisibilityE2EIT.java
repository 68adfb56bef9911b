package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.berth.e2e.Processes.Run;
import dev.berth.e2e.chart.ChartRoles;
import dev.berth.e2e.plane.HostAddress;
import dev.berth.operator.BerthOperator;
import dev.berth.webhook.tls.CaBundlePatcher;
import dev.berth.webhook.tls.CertificateAuthority;
import dev.berth.webhook.tls.ServingKeyManager;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 46, point 5: the visibility API as the aggregated API {@code v1beta1.visibility.berth.dev}
 * on a real kube-apiserver with the aggregation layer on (front-proxy CA and client certificate,
 * {@code --requestheader-*}): the chart's APIService, its RBAC and Service, the caBundle written by
 * {@link CaBundlePatcher}; users call it with their own kubeconfig ({@code kubectl --as}, and
 * {@code kubectl berth pending} with no URL or token), the API server proxies with its front-proxy
 * certificate, the operator believes the user headers only on that certificate.
 */
class AggregatedVisibilityE2EIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String A = "agg-a";
  private static final String B = "agg-b";
  private static final String MEMBER = "agg-alice";
  private static final String LQ_PATH =
      "/apis/visibility.berth.dev/v1beta1/namespaces/%s/localqueues/lq/pendingworkloads";
  private static final String CQ_PATH =
      "/apis/visibility.berth.dev/v1beta1/clusterqueues/agg-cq/pendingworkloads";

  private static TestApiServer.Cluster cluster;
  private static KubernetesClient admin;
  private static BerthOperator operator;
  private static CertificateAuthority ca;
  private static Path home;

  @BeforeAll
  static void setUp() throws Exception {
    home = Files.createTempDirectory("berth-aggregated");
    cluster = TestApiServer.dedicated();
    admin = cluster.client();
    Files.writeString(home.resolve("admin.kubeconfig"), cluster.kubeconfig());
    operator = RunningOperator.startNew(cluster.kubeconfig(), false);
    // The API server dials the APIService's endpoint and checks the serving certificate against
    // the caBundle for the Service's name, as in a cluster. Endpoints may not be loopback
    // addresses, so the operator listens on this machine's own address too.
    ca = CertificateAuthority.generate("berth-aggregated-e2e", Duration.ofDays(1));
    String host = HostAddress.ipv4();
    int port =
        operator.serveHttps(
            "0.0.0.0",
            0,
            new ServingKeyManager(
                ca.issue(
                    List.of("berth.berth-system.svc"), List.of("127.0.0.1"), Duration.ofDays(1))),
            false);
    Namespaces.ensure(admin, "berth-system");
    // The chart's objects for the aggregated API, rendered by helm: APIService and RBAC.
    for (String kind : List.of("APIService", "RoleBinding", "ClusterRoleBinding")) {
      for (GenericKubernetesResource o : ChartRoles.rendered(kind, "berth", "berth-system")) {
        if (o.getMetadata().getName().contains("auth")
            || o.getMetadata().getName().startsWith("v1beta1.visibility")) {
          admin.resource(o).serverSideApply();
        }
      }
    }
    admin
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName("berth")
                .withNamespace("berth-system")
                .endMetadata()
                .withNewSpec()
                .addNewPort()
                .withName("https")
                .withPort(8443)
                .withNewTargetPort("https")
                .endPort()
                .endSpec()
                .build())
        .serverSideApply();
    // No controller manager here: the endpoint a Service's EndpointSlice controller would write.
    admin
        .resource(
            new EndpointSliceBuilder()
                .withNewMetadata()
                .withName("berth-https")
                .withNamespace("berth-system")
                .addToLabels("kubernetes.io/service-name", "berth")
                .endMetadata()
                .withAddressType("IPv4")
                .addNewEndpoint()
                .withAddresses(host)
                .withNewConditions()
                .withReady(true)
                .endConditions()
                .endEndpoint()
                .addNewPort()
                .withName("https")
                .withPort(port)
                .withProtocol("TCP")
                .endPort()
                .build())
        .serverSideApply();
    new CaBundlePatcher(
            admin, List.of(), List.of(), List.of(CaBundlePatcher.VISIBILITY_API_SERVICE))
        .accept(ca.certificatePem());
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> assertThat(available()).as("APIService Available condition").startsWith("True"));
  }

  @AfterAll
  static void tearDown() {
    if (operator != null) {
      operator.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void usersSeeThePendingWorkloadsTheirRbacLetsThemList() throws Exception {
    Scenario a = new Scenario(admin, A);
    Scenario b = new Scenario(admin, B);
    admin.resource(ScenarioObjects.flavor("agg-flavor", Map.of())).create();
    admin.resource(ScenarioObjects.clusterQueue("agg-cq", "agg-flavor", "cpu", "1")).create();
    admin.resource(ScenarioObjects.localQueue(A, "lq", "agg-cq")).create();
    admin.resource(ScenarioObjects.localQueue(B, "lq", "agg-cq")).create();
    TeamMemberRoles.bind(admin, MEMBER, A);

    a.submit(ScenarioObjects.job(A, "running", "lq", 1, "1"));
    await().atMost(Duration.ofSeconds(30)).until(() -> a.running("running"));
    // Without the webhook the queue orders by creation second: one second apart across both
    // namespaces (each Scenario spaces only its own submissions).
    VisibilityE2EIT.nextSecondAfter(a.submit(ScenarioObjects.job(A, "first", "lq", 1, "1")));
    VisibilityE2EIT.nextSecondAfter(b.submit(ScenarioObjects.job(B, "theirs", "lq", 1, "1")));
    a.submit(ScenarioObjects.job(A, "second", "lq", 1, "1"));

    // The admin (system:masters) sees the whole ClusterQueue, through the API server.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              Run all = kubectl("get", "--raw", CQ_PATH);
              assertThat(all.code()).as(all.err()).isZero();
              JsonNode body = JSON.readTree(all.out());
              assertThat(body.path("apiVersion").asText())
                  .isEqualTo("visibility.berth.dev/v1beta1");
              assertThat(namespaces(body)).containsExactly(A, B, A);
            });

    // A team member, with her own identity (kubectl --as): her namespace's queue, in order.
    Run own = kubectl("--as", MEMBER, "get", "--raw", LQ_PATH.formatted(A));
    assertThat(own.code()).as(own.err()).isZero();
    JsonNode mine = JSON.readTree(own.out());
    assertThat(namespaces(mine)).containsExactly(A, A);
    assertThat(mine.at("/items/0/name").asText()).startsWith("job-first");
    assertThat(mine.at("/items/0/positionInClusterQueue").asInt()).isZero();
    assertThat(mine.at("/items/1/positionInClusterQueue").asInt()).isEqualTo(2);

    // Another namespace's LocalQueue: the API server's RBAC refuses it (no role there).
    Run theirs = kubectl("--as", MEMBER, "get", "--raw", LQ_PATH.formatted(B));
    assertThat(theirs.code()).isNotZero();
    assertThat(theirs.err()).contains("Forbidden").contains(MEMBER);
    // A ClusterQueue's list is the platform team's (batch-admin), not a team member's.
    Run cq = kubectl("--as", MEMBER, "get", "--raw", CQ_PATH);
    assertThat(cq.code()).isNotZero();
    assertThat(cq.err()).contains("Forbidden");

    // Granted the visibility paths cluster-wide, she still sees only the namespaces where she may
    // list Workloads: the operator's own SubjectAccessReview, as her, behind the API server.
    for (String viewer :
        List.of("berth-pending-workloads-lq-viewer", "berth-pending-workloads-cq-viewer")) {
      admin
          .rbac()
          .clusterRoleBindings()
          .resource(
              new ClusterRoleBindingBuilder()
                  .withNewMetadata()
                  .withName(MEMBER + "-" + viewer)
                  .endMetadata()
                  .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", viewer)
                  .addNewSubject()
                  .withKind("User")
                  .withName(MEMBER)
                  .endSubject()
                  .build())
          .serverSideApply();
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              Run refused = kubectl("--as", MEMBER, "get", "--raw", LQ_PATH.formatted(B));
              assertThat(refused.code()).isNotZero();
              assertThat(refused.err())
                  .contains("may not list workloads.berth.dev in namespace " + B);
              Run filtered = kubectl("--as", MEMBER, "get", "--raw", CQ_PATH);
              assertThat(filtered.code()).as(filtered.err()).isZero();
              assertThat(namespaces(JSON.readTree(filtered.out()))).containsExactly(A, A);
            });

    // kubectl berth pending: no URL, no token; the user's kubeconfig through the API server.
    Run all = berth(home.resolve("admin.kubeconfig"), "pending", "--cq", "agg-cq", "-o", "json");
    assertThat(all.code()).as(all.err()).isZero();
    assertThat(all.out()).contains("job-theirs").contains("job-first").contains("job-second");

    // The team member's own kubeconfig (here the admin's, impersonating her, as `as:` in a
    // kubeconfig does): her namespace's queue, and kubectl's refusal for another.
    Path alice = home.resolve("alice.kubeconfig");
    io.fabric8.kubernetes.api.model.Config config =
        io.fabric8.kubernetes.client.utils.Serialization.unmarshal(
            cluster.kubeconfig(), io.fabric8.kubernetes.api.model.Config.class);
    config.getUsers().get(0).getUser().setAs(MEMBER);
    Files.writeString(alice, io.fabric8.kubernetes.client.utils.Serialization.asYaml(config));
    Run mineThroughPlugin = berth(alice, "pending", "-n", A, "-o", "json");
    assertThat(mineThroughPlugin.code()).as(mineThroughPlugin.err()).isZero();
    assertThat(mineThroughPlugin.out())
        .contains("job-first")
        .contains("job-second")
        .doesNotContain("job-theirs");
    Run theirsThroughPlugin = berth(alice, "pending", "-n", B);
    assertThat(theirsThroughPlugin.code()).isEqualTo(1);
    assertThat(theirsThroughPlugin.err()).containsIgnoringCase("forbidden");
  }

  /** {@code kubectl berth ARGS} from the reactor's jar, with this kubeconfig and nothing else. */
  private static Run berth(Path kubeconfig, String... args) throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "java",
                "-jar",
                Path.of(System.getProperty("berth.repo"))
                    .resolve("kubectl-plugin/target/kubectl-berth.jar")
                    .toString()));
    cmd.addAll(List.of(args));
    cmd.addAll(List.of("--kubeconfig", kubeconfig.toString()));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("PATH", Processes.kubectlDir() + ":" + System.getenv("PATH"));
    pb.environment().remove("BERTH_VISIBILITY_URL");
    pb.environment().remove("BERTH_TOKEN");
    return Processes.run(pb, home);
  }

  @Test
  void theUserHeadersAreBelievedOnlyFromTheFrontProxy() throws Exception {
    int port = operator.httpsPort();
    // No client certificate: the headers are anyone's; without a bearer token it is 401.
    HttpResponse<String> forged =
        HttpClient.newBuilder()
            .sslContext(ca.trustingClientContext())
            .build()
            .send(
                HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + CQ_PATH))
                    .header("X-Remote-User", "system:admin")
                    .header("X-Remote-Group", "system:masters")
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(forged.statusCode()).isEqualTo(401);

    // A client certificate of another CA fails the handshake.
    CertificateAuthority other =
        CertificateAuthority.generate("not-front-proxy", Duration.ofDays(1));
    var stranger = other.issueClient("front-proxy-client", Duration.ofDays(1));
    java.security.KeyStore keys = java.security.KeyStore.getInstance("PKCS12");
    keys.load(null, null);
    keys.setKeyEntry("k", stranger.key(), new char[0], stranger.chain());
    javax.net.ssl.KeyManagerFactory kmf =
        javax.net.ssl.KeyManagerFactory.getInstance(
            javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, new char[0]);
    javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
    // Present the certificate even though the server names only the front-proxy CA as an issuer
    // it accepts (a JDK client would otherwise send none), as an attacker would.
    javax.net.ssl.X509ExtendedKeyManager chosen =
        (javax.net.ssl.X509ExtendedKeyManager) kmf.getKeyManagers()[0];
    javax.net.ssl.X509ExtendedKeyManager always =
        new javax.net.ssl.X509ExtendedKeyManager() {
          @Override
          public String[] getClientAliases(String keyType, java.security.Principal[] issuers) {
            return new String[] {"k"};
          }

          @Override
          public String chooseClientAlias(
              String[] keyType, java.security.Principal[] issuers, java.net.Socket socket) {
            return "k";
          }

          @Override
          public String chooseEngineClientAlias(
              String[] keyType, java.security.Principal[] issuers, javax.net.ssl.SSLEngine e) {
            return "k";
          }

          @Override
          public String[] getServerAliases(String keyType, java.security.Principal[] issuers) {
            return null;
          }

          @Override
          public String chooseServerAlias(
              String keyType, java.security.Principal[] issuers, java.net.Socket socket) {
            return null;
          }

          @Override
          public java.security.cert.X509Certificate[] getCertificateChain(String alias) {
            return chosen.getCertificateChain(alias);
          }

          @Override
          public java.security.PrivateKey getPrivateKey(String alias) {
            return chosen.getPrivateKey(alias);
          }
        };
    context.init(
        new javax.net.ssl.KeyManager[] {always},
        new javax.net.ssl.TrustManager[] {trustManagerOf(ca)},
        null);
    HttpClient impostor = HttpClient.newBuilder().sslContext(context).build();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + CQ_PATH))
            .header("X-Remote-User", "system:admin")
            .header("X-Remote-Group", "system:masters")
            .build();
    assertThatThrownBy(() -> impostor.send(request, HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(IOException.class);
  }

  private static javax.net.ssl.X509TrustManager trustManagerOf(CertificateAuthority ca)
      throws Exception {
    java.security.KeyStore store = java.security.KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setCertificateEntry("ca", ca.certificate());
    javax.net.ssl.TrustManagerFactory tmf =
        javax.net.ssl.TrustManagerFactory.getInstance(
            javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(store);
    return (javax.net.ssl.X509TrustManager) tmf.getTrustManagers()[0];
  }

  private static List<String> namespaces(JsonNode body) {
    List<String> out = new ArrayList<>();
    body.path("items").forEach(i -> out.add(i.path("namespace").asText()));
    return out;
  }

  private static String available() {
    GenericKubernetesResource service =
        admin
            .genericKubernetesResources("apiregistration.k8s.io/v1", "APIService")
            .withName(CaBundlePatcher.VISIBILITY_API_SERVICE)
            .get();
    JsonNode conditions = JSON.valueToTree(service).at("/status/conditions");
    for (JsonNode c : conditions) {
      if (c.path("type").asText().equals("Available")) {
        return c.path("status").asText() + " " + c.path("message").asText();
      }
    }
    return "no Available condition";
  }

  /** This machine's first non-loopback IPv4 address: where the API server can dial the operator. */
  private static Run kubectl(String... args) throws Exception {
    List<String> cmd =
        new ArrayList<>(List.of(Processes.kubectlDir().resolve("kubectl").toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("KUBECONFIG", home.resolve("admin.kubeconfig").toString());
    return Processes.run(pb, home);
  }
}
