package dev.berth.operator.visibility;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.webhook.server.AsyncHttpsServer;
import dev.berth.webhook.tls.CertificateAuthority;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which user a request through the API server's front proxy is, and when none is believed. */
class FrontProxyTest {
  private static final CertificateAuthority CA =
      CertificateAuthority.generate("front-proxy-ca", Duration.ofDays(1));

  private static final Map<String, String> CONFIG_MAP =
      Map.of(
          "requestheader-client-ca-file", CA.certificatePem(),
          "requestheader-allowed-names", "[\"front-proxy-client\"]",
          "requestheader-username-headers", "[\"X-Remote-User\"]",
          "requestheader-uid-headers", "[\"X-Remote-Uid\"]",
          "requestheader-group-headers", "[\"X-Remote-Group\"]",
          "requestheader-extra-headers-prefix", "[\"X-Remote-Extra-\"]");

  private final FrontProxy proxy = new FrontProxy(null);

  FrontProxyTest() {
    proxy.use(FrontProxy.Settings.of(CONFIG_MAP));
  }

  @Test
  void theUserGroupsAndExtraComeFromTheHeaders() throws Exception {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("X-Remote-User", List.of("alice"));
    headers.put("X-Remote-Uid", List.of("u-1"));
    headers.put("X-Remote-Group", List.of("team-llm", "system:authenticated"));
    headers.put("X-Remote-Extra-Authentication.kubernetes.io%2fpod-name", List.of("p"));
    FrontProxy.User user = proxy.userOf(request(client("front-proxy-client"), headers));
    assertThat(user.name()).isEqualTo("alice");
    assertThat(user.uid()).isEqualTo("u-1");
    assertThat(user.groups()).containsExactly("team-llm", "system:authenticated");
    assertThat(user.extra()).containsEntry("authentication.kubernetes.io/pod-name", List.of("p"));
  }

  @Test
  void withoutAClientCertificateTheHeadersAreNotTheProxys() throws Exception {
    assertThat(proxy.userOf(request(List.of(), Map.of("X-Remote-User", List.of("admin")))))
        .isNull();
  }

  @Test
  void aCertificateWhoseNameIsNotAllowedIsRefused() {
    assertThatThrownBy(
            () ->
                proxy.userOf(
                    request(client("someone-else"), Map.of("X-Remote-User", List.of("admin")))))
        .isInstanceOf(RequestIdentity.Unauthenticated.class)
        .hasMessageContaining("CN=someone-else");
  }

  @Test
  void noUserHeaderIsRefused() {
    assertThatThrownBy(() -> proxy.userOf(request(client("front-proxy-client"), Map.of())))
        .isInstanceOf(RequestIdentity.Unauthenticated.class);
  }

  @Test
  void theTrustManagerAcceptsOnlyTheFrontProxyCa() throws Exception {
    var trust = proxy.trustManager();
    trust.checkClientTrusted(client("front-proxy-client").toArray(new X509Certificate[0]), "RSA");
    CertificateAuthority other = CertificateAuthority.generate("other", Duration.ofDays(1));
    X509Certificate[] stranger =
        other.issueClient("front-proxy-client", Duration.ofDays(1)).chain();
    assertThatThrownBy(() -> trust.checkClientTrusted(stranger, "RSA"))
        .isInstanceOf(java.security.cert.CertificateException.class);
    assertThat(trust.getAcceptedIssuers()).containsExactly(CA.certificate());

    proxy.use(FrontProxy.Settings.NONE);
    assertThatThrownBy(
            () ->
                trust.checkClientTrusted(
                    client("front-proxy-client").toArray(new X509Certificate[0]), "RSA"))
        .isInstanceOf(java.security.cert.CertificateException.class);
  }

  @Test
  void aConfigMapListThatIsNotJsonNamesItsKey() {
    Map<String, String> bad = new LinkedHashMap<>(CONFIG_MAP);
    bad.put("requestheader-allowed-names", "front-proxy-client");
    assertThatThrownBy(() -> FrontProxy.Settings.of(bad))
        .hasMessageContaining("data.requestheader-allowed-names");
  }

  private static List<X509Certificate> client(String cn) {
    return List.of(CA.issueClient(cn, Duration.ofDays(1)).chain());
  }

  private static AsyncHttpsServer.Request request(
      List<X509Certificate> certs, Map<String, List<String>> headers) {
    AsyncHttpsServer.HeaderLookup lookup =
        new AsyncHttpsServer.HeaderLookup() {
          @Override
          public String get(String name) {
            List<String> all = all(name);
            return all.isEmpty() ? null : all.get(0);
          }

          @Override
          public List<String> all(String name) {
            for (var e : headers.entrySet()) {
              if (e.getKey().equalsIgnoreCase(name)) {
                return e.getValue();
              }
            }
            return List.of();
          }

          @Override
          public List<String> names() {
            return new ArrayList<>(headers.keySet());
          }
        };
    return new AsyncHttpsServer.Request("GET", "/", lookup, new byte[0], certs);
  }
}
