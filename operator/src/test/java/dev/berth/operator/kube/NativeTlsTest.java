package dev.berth.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.berth.operator.Clients;
import dev.berth.webhook.tls.CertificateAuthority;
import dev.berth.webhook.tls.KeyMaterial;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.StandardHttpClientBuilder;
import io.fabric8.kubernetes.client.vertx.VertxHttpClientBuilder;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * BoringSSL's engines keep the JDK engine's promises: the same servers are trusted and the same are
 * refused (another CA, another name), and the kubeconfig's insecure settings mean the same. Each
 * case runs a real TLS connection through the client the operator builds, once with each engine,
 * against a JDK HTTPS server on loopback. Client certificates against the real API server: {@code
 * ClusterCredentialsIT}.
 */
class NativeTlsTest {
  private static final CertificateAuthority CA =
      CertificateAuthority.generate("berth-test-ca", Duration.ofHours(1));
  private static final CertificateAuthority OTHER_CA =
      CertificateAuthority.generate("someone-else", Duration.ofHours(1));

  /** Serves 127.0.0.1 and localhost. */
  private static HttpsServer right;

  /** Serves only another name, on the same address. */
  private static HttpsServer wrongName;

  @BeforeAll
  static void start() throws Exception {
    right = server(CA.issue(List.of("localhost"), List.of("127.0.0.1"), Duration.ofHours(1)));
    wrongName = server(CA.issue(List.of("api.example.invalid"), List.of(), Duration.ofHours(1)));
  }

  @AfterAll
  static void stop() {
    right.stop(0);
    wrongName.stop(0);
  }

  @Test
  void boringSslLoadsWhereItsLibraryIsShipped() {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch");
    boolean shipped = os.contains("linux") && List.of("amd64", "x86_64", "aarch64").contains(arch);
    // Shipped for glibc Linux on x86_64 and aarch64; elsewhere the JDK's engine is used instead.
    assertThat(OpenSsl.isAvailable()).as("%s", OpenSsl.unavailabilityCause()).isEqualTo(shipped);
  }

  @Test
  void onlyFalseTurnsItOff() {
    assertThat(wanted(Map.of())).isTrue();
    assertThat(wanted(Map.of(VARIABLE, "true"))).isTrue();
    assertThat(wanted(Map.of(VARIABLE, ""))).isTrue();
    assertThat(wanted(Map.of(VARIABLE, "false"))).isFalse();
    assertThat(wanted(Map.of(VARIABLE, " FALSE "))).isFalse();
  }

  private static final String VARIABLE = "BERTH_NATIVE_TLS";

  /** clientConnection.nativeTls as the configuration's loader reads it from the environment. */
  private static boolean wanted(Map<String, String> env) {
    return dev.berth.operator.config.ConfigurationLoader.fromEnvironment(env)
        .clientConnection()
        .nativeTls();
  }

  @Test
  void theClientsContextHandsOutBoringSslEnginesOrTheJdksWhenTurnedOff() throws Exception {
    TrustManagerFactory trust = trusting(CA);
    assertThat(contextOf(NativeTls.factory(true).newBuilder(), trust))
        .isInstanceOf(NativeTls.EngineContext.class)
        .satisfies(
            c ->
                assertThat(c.createSSLEngine("h", 443))
                    .isInstanceOf(ReferenceCountedOpenSslEngine.class));
    SSLContext jdk = contextOf(NativeTls.factory(false).newBuilder(), trust);
    assertThat(jdk).isNotInstanceOf(NativeTls.EngineContext.class);
    assertThat(jdk.getProvider().getName()).isEqualTo("SunJSSE");
  }

  @Test
  void aServerCertifiedByTheClustersCaIsTrusted() {
    assertBothEngines(right, c -> c.withCaCertData(pem(CA)), true);
  }

  @Test
  void aServerCertifiedByAnotherCaIsRefused() {
    assertBothEngines(right, c -> c.withCaCertData(pem(OTHER_CA)), false);
  }

  @Test
  void aServerCertifiedForAnotherNameIsRefused() {
    assertBothEngines(wrongName, c -> c.withCaCertData(pem(CA)), false);
  }

  @Test
  void insecureSkipTlsVerifyTrustsAnyCertificateWithEitherEngine() {
    assertBothEngines(right, c -> c.withCaCertData(pem(OTHER_CA)).withTrustCerts(true), true);
    assertBothEngines(wrongName, c -> c.withTrustCerts(true), true);
  }

  @Test
  void turningOffHostNameVerificationMeansTheSameWithEitherEngine() {
    boolean jdk =
        connects(
            false, wrongName, c -> c.withCaCertData(pem(CA)).withDisableHostnameVerification(true));
    assertThat(
            connects(
                true,
                wrongName,
                c -> c.withCaCertData(pem(CA)).withDisableHostnameVerification(true)))
        .isEqualTo(jdk);
  }

  /** The same outcome with BoringSSL's engine and the JDK's, and the one expected. */
  private static void assertBothEngines(
      HttpsServer server, UnaryOperator<ConfigBuilder> config, boolean expected) {
    assertThat(connects(false, server, config)).as("the JDK's engine").isEqualTo(expected);
    assertThat(connects(true, server, config)).as("BoringSSL").isEqualTo(expected);
  }

  /** Whether the client reads the server's version; false when TLS refuses the server. */
  private static boolean connects(
      boolean nativeTls, HttpsServer server, UnaryOperator<ConfigBuilder> config) {
    Config c =
        config
            .apply(
                new ConfigBuilder(Config.empty())
                    .withMasterUrl("https://127.0.0.1:" + server.getAddress().getPort())
                    .withRequestRetryBackoffLimit(0)
                    .withConnectionTimeout(5_000)
                    .withRequestTimeout(5_000))
            .build();
    try (KubernetesClient client =
        Clients.builder(Duration.ofSeconds(5), Duration.ZERO, nativeTls).withConfig(c).build()) {
      return "v1.33.0".equals(client.getKubernetesVersion().getGitVersion());
    } catch (RuntimeException e) {
      assertThat(causes(e))
          .as("refused by TLS, not otherwise")
          .anyMatch(SSLException.class::isInstance);
      return false;
    }
  }

  private static List<Throwable> causes(Throwable e) {
    List<Throwable> out = new ArrayList<>();
    for (Throwable t = e; t != null && !out.contains(t); t = t.getCause()) {
      out.add(t);
    }
    return out;
  }

  private static HttpsServer server(KeyMaterial serving) throws Exception {
    KeyStore keys = KeyStore.getInstance("PKCS12");
    keys.load(null, null);
    keys.setKeyEntry("serving", serving.key(), new char[0], serving.chain());
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, new char[0]);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(kmf.getKeyManagers(), null, null);
    HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(context));
    server.createContext(
        "/version",
        exchange -> {
          byte[] body =
              "{\"major\":\"1\",\"minor\":\"33\",\"gitVersion\":\"v1.33.0\"}"
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    return server;
  }

  private static TrustManagerFactory trusting(CertificateAuthority ca) throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setCertificateEntry("ca", ca.certificate());
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(store);
    return tmf;
  }

  /** The context a builder keeps after fabric8 hands it the kubeconfig's managers. */
  private static SSLContext contextOf(VertxHttpClientBuilder<?> builder, TrustManagerFactory trust)
      throws Exception {
    builder.sslContext(null, trust.getTrustManagers());
    Field field = StandardHttpClientBuilder.class.getDeclaredField("sslContext");
    field.setAccessible(true);
    return (SSLContext) field.get(builder);
  }

  private static String pem(CertificateAuthority ca) {
    return Base64.getEncoder()
        .encodeToString(ca.certificatePem().getBytes(StandardCharsets.US_ASCII));
  }
}
