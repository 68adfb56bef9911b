package dev.berth.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.berth.e2e.TestApiServer;
import dev.berth.operator.config.ConfigurationLoader;
import dev.berth.webhook.tls.CertificateAuthority;
import dev.berth.webhook.tls.KeyMaterial;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The image scripts/image-build.sh made (target/image/oci), run under runc the way the kubelet runs
 * the chart's Deployment: the chart's env, user, read-only root, dropped capabilities, memory and
 * CPU limits and volumes; the ServiceAccount token, CA and namespace mounted at
 * /var/run/secrets/kubernetes.io/serviceaccount; KUBERNETES_SERVICE_HOST/PORT pointing at a real
 * kube-apiserver. It must become ready, serve the webhooks, admit a Job, and stop within the
 * chart's grace period on SIGTERM; and it is pushed to a registry as the README says.
 *
 * <p>Stand-ins, because there is no node here: {@link RuncPod} for the kubelet, and this class for
 * cert-manager (the chart in certManager mode: the serving certificate is written into the mounted
 * directory and the caBundle into the webhook configurations, as cert-manager and its CA injector
 * would). The Pod uses the host network, so the webhook configurations name https://127.0.0.1:PORT
 * instead of the Service (a ClusterIP has no route on this machine), and the metrics and webhook
 * ports are free ones instead of 8080 and 9443.
 *
 * <p>Runs only with {@code -Pimage} (it needs root, runc and umoci, and the image): .ci/run does.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ImageInContainerIT {
  private static final String NS = "berth-system";
  private static final String TEAM = "image-team";
  private static final int UID = 65532;

  private static TestApiServer.Cluster cluster;
  private static KubernetesClient admin;
  private static List<GenericKubernetesResource> chart;
  private static Path layout;
  private static String tag;
  private static Path secrets;
  private static int metricsPort;
  private static RuncPod pod;

  @BeforeAll
  static void startTheOperatorInItsContainer() throws Exception {
    layout = Repo.root().resolve("target/image/oci");
    assertThat(layout.resolve("index.json"))
        .as("the image: scripts/image-build.sh (the image profile runs it)")
        .exists();
    tag =
        Files.readString(Repo.root().resolve("helm/berth/Chart.yaml"))
            .lines()
            .filter(l -> l.startsWith("appVersion:"))
            .findFirst()
            .orElseThrow()
            .replaceAll("appVersion:\\s*\"?([^\"]*)\"?\\s*", "$1");

    cluster = TestApiServer.dedicated();
    admin = cluster.client();
    chart = Manifests.parse(HelmCli.template("berth", NS, "--set", "certManager.enabled=true"));
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .create();
    for (GenericKubernetesResource o : chart) {
      if (List.of("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")
          .contains(o.getKind())) {
        Manifests.apply(admin, o);
      }
    }
    secrets = Files.createTempDirectory("berth-pod-secrets-");
    metricsPort = freePort();
    int webhookPort = freePort();
    String caPem = writeServingCertificate(secrets.resolve("certs"));
    registerWebhooks(webhookPort, caPem);
    Path serviceAccount = writeServiceAccountVolume(secrets.resolve("serviceaccount"));

    JsonNode deployment = Manifests.json(Manifests.one(chart, "Deployment"));
    JsonNode container = deployment.at("/spec/template/spec/containers/0");
    Map<String, String> env = containerEnv(container);
    env.put("BERTH_METRICS_PORT", String.valueOf(metricsPort));
    env.put("BERTH_WEBHOOK_PORT", String.valueOf(webhookPort));
    // Host network: the HTTPS port (visibility API) must not clash with the machine's 8443.
    env.put("BERTH_HTTPS_PORT", String.valueOf(freePort()));
    URI api = URI.create(admin.getMasterUrl().toString());
    env.put("KUBERNETES_SERVICE_HOST", "127.0.0.1");
    env.put("KUBERNETES_SERVICE_PORT", String.valueOf(api.getPort()));
    env.put("HOSTNAME", "berth-0");
    // The configuration file as the kubelet mounts the chart's ConfigMap (its volume "config").
    String configFile =
        Manifests.json(Manifests.named(chart, "ConfigMap", "berth-config").orElseThrow())
            .at("/data/config.yaml")
            .asText();
    Path configDir = Files.createDirectories(secrets.resolve("config"));
    Files.writeString(configDir.resolve("config.yaml"), configFile);
    String certDir = ConfigurationLoader.load(configFile, Map.of()).webhook().certDir();
    String configMount =
        StreamSupport.stream(container.path("volumeMounts").spliterator(), false)
            .filter(m -> m.path("name").asText().equals("config"))
            .findFirst()
            .orElseThrow()
            .path("mountPath")
            .asText();
    pod =
        RuncPod.start(
            layout,
            tag,
            podSpec(
                "berth-0",
                env,
                container,
                List.of(
                    new RuncPod.Volume(
                        "/var/run/secrets/kubernetes.io/serviceaccount", serviceAccount, true),
                    new RuncPod.Volume(certDir, secrets.resolve("certs"), true),
                    new RuncPod.Volume(configMount, configDir, true))));
  }

  @AfterAll
  static void stop() throws IOException {
    if (pod != null) {
      pod.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (secrets != null) {
      RuncPod.run(List.of("rm", "-rf", secrets.toString()));
    }
  }

  /**
   * Fails the wait as soon as the container has ended, with its exit status and everything it
   * printed up to then (read when it ends, not when the wait starts).
   */
  private static void containerStillRuns() {
    assertThat(pod.isRunning())
        .as(() -> "the container exited (" + pod.exitStatus() + "):\n" + pod.log())
        .isTrue();
  }

  @Test
  @Order(1)
  void becomesReady() {
    await("/readyz of the operator in its container")
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .failFast(ImageInContainerIT::containerStillRuns)
        .until(() -> httpStatus("/readyz") == 200);
    assertThat(httpStatus("/healthz")).isEqualTo(200);
  }

  /**
   * The image's client does its TLS by BoringSSL: the library is in the jar for this machine, the
   * image's C library loads it, and the chart's writable /tmp takes it on a read-only root.
   */
  @Test
  @Order(2)
  void talksToTheApiServerThroughBoringSsl() {
    assertThat(pod.log()).as(pod.log()).contains("TLS by BoringSSL").doesNotContain("JDK's engine");
  }

  /**
   * The image runs the operator only: its jar carries neither local mode nor kube-api-test's
   * embedded API server, nor the JUnit and Mockito that kube-api-test brings (the local module).
   */
  @Test
  @Order(2)
  void carriesNoLocalModeAndNoTestLibraries() throws IOException {
    try (java.util.zip.ZipFile jar =
        new java.util.zip.ZipFile(pod.rootfs().resolve("app/berth-operator.jar").toFile())) {
      List<String> entries = jar.stream().map(java.util.zip.ZipEntry::getName).toList();
      assertThat(entries).contains("dev/berth/operator/launch/Main.class");
      assertThat(entries)
          .noneMatch(e -> e.startsWith("io/fabric8/kubeapitest/"))
          .noneMatch(e -> e.startsWith("dev/berth/local/"))
          .noneMatch(e -> e.startsWith("org/junit/"))
          .noneMatch(e -> e.startsWith("org/mockito/"));
    }
  }

  @Test
  @Order(2)
  void runsAsTheNonRootUserOnAReadOnlyRoot() throws IOException {
    long pid = pod.hostPid();
    String status = Files.readString(Path.of("/proc/" + pid + "/status"));
    assertThat(status.lines().filter(l -> l.startsWith("Uid:")).findFirst().orElseThrow())
        .matches("Uid:\\s+" + UID + "\\s+" + UID + "\\s+" + UID + "\\s+" + UID);
    assertThat(status.lines().filter(l -> l.startsWith("CapEff:")).findFirst().orElseThrow())
        .isEqualTo("CapEff:\t0000000000000000");
    String rootMount =
        Files.readAllLines(Path.of("/proc/" + pid + "/mountinfo")).stream()
            .filter(l -> l.split(" ")[4].equals("/"))
            .findFirst()
            .orElseThrow();
    assertThat(rootMount.split(" ")[5].split(",")).contains("ro");
  }

  @Test
  @Order(3)
  void servesTheWebhooks() {
    // Only Berth's validating webhook knows this rule; the schema lets the object through.
    String invalid =
        """
        apiVersion: berth.dev/v1beta1
        kind: ClusterQueue
        metadata: {name: gpu-in-two-groups}
        spec:
          resourceGroups:
          - coveredResources: [nvidia.com/gpu]
            flavors: [{name: h100, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}]
          - coveredResources: [nvidia.com/gpu]
            flavors: [{name: a100, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}]
        """;
    assertThatThrownBy(() -> admin.resource(invalid).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("denied the request")
        .hasMessageContaining("spec.resourceGroups[1].coveredResources[0]");
  }

  @Test
  @Order(4)
  void admitsAJob() {
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(TEAM).endMetadata().build())
        .create();
    admin
        .resource(
            """
        apiVersion: berth.dev/v1beta1
        kind: ResourceFlavor
        metadata: {name: image-default}
        """)
        .create();
    admin
        .resource(
            """
        apiVersion: berth.dev/v1beta1
        kind: ClusterQueue
        metadata: {name: image-cq}
        spec:
          namespaceSelector: {}
          resourceGroups:
          - coveredResources: [cpu, memory]
            flavors:
            - name: image-default
              resources: [{name: cpu, nominalQuota: "4"}, {name: memory, nominalQuota: 8Gi}]
        """)
        .create();
    admin
        .resource(
            """
        apiVersion: berth.dev/v1beta1
        kind: LocalQueue
        metadata: {name: main, namespace: %s}
        spec: {clusterQueue: image-cq}
        """
                .formatted(TEAM))
        .create();
    admin
        .resource(
            """
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: sample
          namespace: %s
          labels: {berth.dev/queue-name: main}
        spec:
          suspend: true
          template:
            spec:
              restartPolicy: Never
              containers:
              - name: main
                image: busybox
                resources: {requests: {cpu: "1", memory: 1Gi}}
        """
                .formatted(TEAM))
        .create();
    await("the Job started by the operator in its container")
        .atMost(Duration.ofSeconds(60))
        .failFast(ImageInContainerIT::containerStillRuns)
        .until(
            () -> {
              Job job = admin.batch().v1().jobs().inNamespace(TEAM).withName("sample").get();
              return Boolean.FALSE.equals(job.getSpec().getSuspend());
            });
    List<GenericKubernetesResource> workloads =
        admin
            .genericKubernetesResources("berth.dev/v1beta1", "Workload")
            .inNamespace(TEAM)
            .list()
            .getItems();
    assertThat(workloads).hasSize(1);
    JsonNode status = Serialization.jsonMapper().valueToTree(workloads.get(0)).path("status");
    assertThat(status.at("/admission/clusterQueue").asText()).isEqualTo("image-cq");
  }

  @Test
  @Order(5)
  void stopsWithinItsGracePeriodOnSigterm() {
    JsonNode deployment = Manifests.json(Manifests.one(chart, "Deployment"));
    int grace = deployment.at("/spec/template/spec/terminationGracePeriodSeconds").asInt();
    assertThat(grace).isPositive();
    int logBefore = pod.log().length();
    long started = System.nanoTime();
    pod.kill("TERM");
    OptionalInt exit = pod.awaitExit(Duration.ofSeconds(grace));
    long tookMs = (System.nanoTime() - started) / 1_000_000;
    if (exit.isEmpty()) {
      pod.kill("QUIT"); // the JVM prints its threads: what the shutdown waits for
      pod.awaitExit(Duration.ofSeconds(3));
    }
    assertThat(exit).as("exit within %d s; log:%n%s", grace, pod.log()).isPresent();
    // 143 = 128 + SIGTERM: the JVM ran its shutdown hooks and ended on the signal.
    assertThat(exit.getAsInt()).as(pod.log()).isIn(0, 143);
    // The loop ends its cycle before the client closes: no write meets a closed client. (JOSDK
    // stops its executors before it cancels the Lease renewal, so a renewal in flight may log
    // its interruption; that is the only stack trace a stop may print.)
    String stopLog = pod.log().substring(logBefore);
    assertThat(stopLog).as(stopLog).doesNotContain("already closed");
    assertThat(stopLog.split("\n(?=\\d)"))
        .as(stopLog)
        .filteredOn(entry -> entry.contains("\n\tat "))
        .allMatch(entry -> entry.contains("LeaderElector") && entry.contains("Interrupted"));
    System.out.printf("[berth-test] operator container stopped %d ms after SIGTERM%n", tookMs);
  }

  @Test
  @Order(6)
  void sizesItsHeapFromTheContainerMemoryLimit() {
    // The image's own java with the flags it ships, in a container with the chart's limit.
    JsonNode container =
        Manifests.json(Manifests.one(chart, "Deployment")).at("/spec/template/spec/containers/0");
    long limit = bytes(container.at("/resources/limits/memory").asText());
    try (RuncPod java =
        RuncPod.start(
            layout,
            tag,
            new RuncPod.Spec(
                "berth-java",
                Map.of(),
                UID,
                UID,
                limit,
                1000,
                List.of(),
                Map.of("/tmp", 64),
                List.of("/opt/java/bin/java", "-XX:+PrintFlagsFinal", "-version")))) {
      OptionalInt exit = java.awaitExit(Duration.ofSeconds(60));
      assertThat(exit).isPresent();
      String flags = java.log();
      assertThat(exit.getAsInt()).as(flags).isZero();
      // Half the limit: the JVM takes about 190 MiB outside the heap (docs/helm.md#memory).
      assertThat(flag(flags, "MaxHeapSize")).isEqualTo(String.valueOf(limit / 2));
      assertThat(flag(flags, "UseSerialGC")).isEqualTo("true");
      assertThat(flag(flags, "ExitOnOutOfMemoryError")).isEqualTo("true");
      assertThat(flag(flags, "UseContainerSupport")).isEqualTo("true");
      // The heap grows only below 20% free, and free malloc memory goes back every 5 s: the
      // image's runtime knows both flags and takes them.
      assertThat(flag(flags, "MinHeapFreeRatio")).isEqualTo("20");
      assertThat(flag(flags, "TrimNativeHeapInterval")).isEqualTo("5000");
      // The JIT keeps the JVM's own inlining budget: the smaller one is an option, measured on
      // one load only (docs/helm.md#cpu), not a default.
      for (String inlining : List.of("FreqInlineSize", "InlineSmallCode", "MaxInlineLevel")) {
        assertThat(origin(flags, inlining)).as(inlining).isEqualTo("default");
      }
      // What the runtime itself sets (jlink --add-options: origin "jimage") is exactly the
      // chart's -XX options, no flag more or less, so the image without the chart's
      // JAVA_TOOL_OPTIONS runs as the chart does.
      assertThat(
              flags
                  .lines()
                  .map(l -> l.trim().split("\\s+"))
                  .filter(f -> f.length >= 6 && f[f.length - 1].equals("{jimage}"))
                  .map(f -> f[1]))
          .as(flags)
          .containsExactlyInAnyOrderElementsOf(chartXxFlagNames(container));
    }
  }

  /** The names of the -XX flags in the chart's JAVA_TOOL_OPTIONS (-XX:+Name, -XX:Name=value). */
  private static List<String> chartXxFlagNames(JsonNode container) {
    for (JsonNode e : container.path("env")) {
      if (e.path("name").asText().equals("JAVA_TOOL_OPTIONS")) {
        return java.util.Arrays.stream(e.path("value").asText().trim().split("\\s+"))
            .filter(o -> o.startsWith("-XX:"))
            .map(o -> o.substring(4).replaceFirst("^[+-]", "").replaceFirst("=.*", ""))
            .toList();
      }
    }
    throw new AssertionError("no JAVA_TOOL_OPTIONS in the operator container");
  }

  /** Where a flag's value came from, as -XX:+PrintFlagsFinal says: default, jimage, ... */
  private static String origin(String printFlagsFinal, String name) {
    return printFlagsFinal
        .lines()
        .map(String::trim)
        .map(l -> l.split("\\s+"))
        .filter(f -> f.length >= 6 && f[1].equals(name))
        .map(f -> f[f.length - 1].replaceAll("[{}]", ""))
        .findFirst()
        .orElseThrow(() -> new AssertionError(name + " not in:\n" + printFlagsFinal));
  }

  /** As the README tells users to push it: skopeo, to a registry (here one on 127.0.0.1). */
  @Test
  @Order(7)
  void isTheSizeTheDocsState() throws Exception {
    // docs/image.md adds layers it rounds to the MB: within 1.5 MB, or the docs are stale.
    assertThat(ImageSize.measuredMb(layout))
        .as("the image's compressed layers, in MB; docs/image.md says %d", ImageSize.documented())
        .isBetween(ImageSize.documented() - 1.5, ImageSize.documented() + 1.5);
  }

  @Test
  @Order(7)
  void pushesToARegistryUnderItsDigest() throws Exception {
    Path dir = Files.createTempDirectory(secrets, "registry-");
    int port = freePort();
    Path config = dir.resolve("config.yml");
    Files.writeString(
        config,
        """
        version: 0.1
        storage: {filesystem: {rootdirectory: %s}}
        http: {addr: "127.0.0.1:%d"}
        """
            .formatted(dir.resolve("data"), port));
    Process registry =
        new ProcessBuilder("docker-registry", "serve", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("log").toFile())
            .start();
    try {
      String ref = "docker://127.0.0.1:" + port + "/platform/berth:" + tag;
      await("the registry on :" + port)
          .atMost(Duration.ofSeconds(30))
          .until(() -> httpStatus(port, "/v2/") == 200);
      RuncPod.run(
          List.of("skopeo", "copy", "--dest-tls-verify=false", "oci:" + layout + ":" + tag, ref));
      JsonNode pushed =
          Serialization.jsonMapper()
              .readTree(RuncPod.run(List.of("skopeo", "inspect", "--tls-verify=false", ref)));
      assertThat(pushed.get("Digest").asText())
          .isEqualTo(Files.readString(Repo.root().resolve("target/image/digest")).trim());
    } finally {
      registry.destroy();
      registry.waitFor();
    }
  }

  private static String flag(String printFlagsFinal, String name) {
    return printFlagsFinal
        .lines()
        .map(String::trim)
        .map(l -> l.split("\\s+"))
        .filter(f -> f.length >= 4 && f[1].equals(name))
        .map(f -> f[3])
        .findFirst()
        .orElseThrow(() -> new AssertionError(name + " not in:\n" + printFlagsFinal));
  }

  private static RuncPod.Spec podSpec(
      String name, Map<String, String> env, JsonNode container, List<RuncPod.Volume> volumes) {
    JsonNode security = container.path("securityContext");
    assertThat(security.path("readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(security.path("allowPrivilegeEscalation").asBoolean(true)).isFalse();
    assertThat(security.at("/capabilities/drop/0").asText()).isEqualTo("ALL");
    JsonNode podSecurity =
        Manifests.json(Manifests.one(chart, "Deployment"))
            .at("/spec/template/spec/securityContext");
    assertThat(podSecurity.path("runAsUser").asInt()).isEqualTo(UID);
    long memory = bytes(container.at("/resources/limits/memory").asText());
    long cpuMillis =
        new Quantity(container.at("/resources/limits/cpu").asText())
            .getNumericalAmount()
            .multiply(java.math.BigDecimal.valueOf(1000))
            .longValue();
    // The chart's emptyDir for /tmp (sizeLimit 64Mi); the certificate directory is the Secret.
    return new RuncPod.Spec(
        name,
        env,
        podSecurity.path("runAsUser").asInt(),
        podSecurity.path("runAsGroup").asInt(),
        memory,
        cpuMillis,
        volumes,
        Map.of("/tmp", 64),
        List.of());
  }

  private static long bytes(String quantity) {
    return new Quantity(quantity).getNumericalAmount().longValueExact();
  }

  /** The container's env as the kubelet resolves it: values, and the namespace fieldRef. */
  private static Map<String, String> containerEnv(JsonNode container) {
    Map<String, String> env = new LinkedHashMap<>();
    for (JsonNode e : container.path("env")) {
      if (e.has("value")) {
        env.put(e.get("name").asText(), e.get("value").asText());
      } else if ("metadata.namespace".equals(e.at("/valueFrom/fieldRef/fieldPath").asText())) {
        env.put(e.get("name").asText(), NS);
      } else {
        throw new AssertionError("env the test cannot resolve: " + e);
      }
    }
    return env;
  }

  /** cert-manager's part: a CA, a serving certificate for 127.0.0.1, the Secret's three files. */
  private static String writeServingCertificate(Path dir) throws IOException {
    CertificateAuthority ca =
        CertificateAuthority.generate("berth-image-test-ca", Duration.ofDays(1));
    KeyMaterial serving = ca.issue(List.of(), List.of("127.0.0.1"), Duration.ofDays(1));
    StringBuilder chain = new StringBuilder();
    for (var cert : serving.chain()) {
      chain.append(CertificateAuthority.Pem.encode(cert));
    }
    Files.createDirectories(dir);
    secretFile(dir.resolve("tls.crt"), chain.toString());
    secretFile(dir.resolve("tls.key"), CertificateAuthority.Pem.encodeKey(serving.key()));
    secretFile(dir.resolve("ca.crt"), ca.certificatePem());
    return ca.certificatePem();
  }

  /** The chart's webhook configurations, pointed at the Pod on the host network. */
  private static void registerWebhooks(int port, String caPem) {
    String caBundle = Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.UTF_8));
    for (String kind : List.of("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")) {
      GenericKubernetesResource config = Manifests.one(chart, kind);
      ObjectNode json = (ObjectNode) Manifests.json(config);
      for (JsonNode webhook : json.path("webhooks")) {
        ObjectNode client = (ObjectNode) webhook.get("clientConfig");
        String path = client.at("/service/path").asText();
        client.remove("service");
        client.put("url", "https://127.0.0.1:" + port + path);
        client.put("caBundle", caBundle);
      }
      ((ObjectNode) json.get("metadata")).remove("annotations"); // cert-manager's inject-ca-from
      Manifests.apply(
          admin, Serialization.jsonMapper().convertValue(json, GenericKubernetesResource.class));
    }
  }

  /** The kubelet's projected volume: a bound token of the chart's ServiceAccount, CA, namespace. */
  private static Path writeServiceAccountVolume(Path dir) throws IOException {
    GenericKubernetesResource sa = Manifests.one(chart, "ServiceAccount");
    String token =
        admin
            .serviceAccounts()
            .inNamespace(NS)
            .withName(sa.getMetadata().getName())
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(3600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    Config kubeconfig = Config.fromKubeconfig(cluster.kubeconfig());
    String ca =
        kubeconfig.getCaCertData() != null
            ? new String(
                Base64.getDecoder().decode(kubeconfig.getCaCertData()), StandardCharsets.UTF_8)
            : Files.readString(Path.of(kubeconfig.getCaCertFile()));
    Files.createDirectories(dir);
    secretFile(dir.resolve("token"), token);
    secretFile(dir.resolve("ca.crt"), ca);
    secretFile(dir.resolve("namespace"), NS);
    return dir;
  }

  /** As the kubelet writes Secret and projected files: 0440, group = the Pod's fsGroup. */
  private static void secretFile(Path file, String content) throws IOException {
    Files.writeString(file, content);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--r-----"));
    RuncPod.run(List.of("chown", "0:" + UID, file.toString()));
    Files.setPosixFilePermissions(file.getParent(), PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private static int httpStatus(String path) {
    return httpStatus(metricsPort, path);
  }

  private static int httpStatus(int port, String path) {
    try {
      HttpResponse<Void> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                      .timeout(Duration.ofSeconds(3))
                      .build(),
                  HttpResponse.BodyHandlers.discarding());
      return response.statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
