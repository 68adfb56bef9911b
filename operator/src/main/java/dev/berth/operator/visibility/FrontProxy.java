package dev.berth.operator.visibility;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.berth.webhook.server.AsyncHttpsServer.Request;
import dev.berth.webhook.tls.CertificateAuthority;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.Socket;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kubernetes API server as a front proxy, for the aggregated visibility API ({@code
 * v1beta1.visibility.berth.dev}): the API server authenticates the user, then calls the operator
 * presenting its proxy client certificate and naming the user in request headers ({@code
 * X-Remote-User}, {@code X-Remote-Group}, {@code X-Remote-Extra-*}). Those headers are believed
 * only on a connection whose client certificate the front-proxy CA signed and whose common name is
 * an allowed one; anyone else could send them.
 *
 * <p>What to trust comes from the ConfigMap the API server publishes, {@code
 * kube-system/extension-apiserver-authentication} (readable through the {@code
 * extension-apiserver-authentication-reader} Role), read at start and every minute, so a rotated
 * front-proxy CA is picked up. Without it (no aggregation layer, or no right to read it) no client
 * certificate is accepted and bearer tokens remain the only way in.
 */
public final class FrontProxy implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FrontProxy.class);
  static final String NAMESPACE = "kube-system";
  static final String CONFIG_MAP = "extension-apiserver-authentication";

  /** What the API server's ConfigMap says about its front proxy; empty CAs trust nobody. */
  record Settings(
      List<X509Certificate> cas,
      Set<String> allowedNames,
      List<String> userHeaders,
      List<String> uidHeaders,
      List<String> groupHeaders,
      List<String> extraPrefixes) {
    static final Settings NONE =
        new Settings(List.of(), Set.of(), List.of(), List.of(), List.of(), List.of());

    static Settings of(Map<String, String> data) {
      String ca = data.get("requestheader-client-ca-file");
      if (ca == null || ca.isBlank()) {
        return NONE;
      }
      return new Settings(
          List.of(CertificateAuthority.Pem.certificates(ca)),
          Set.copyOf(list(data, "requestheader-allowed-names")),
          list(data, "requestheader-username-headers"),
          list(data, "requestheader-uid-headers"),
          list(data, "requestheader-group-headers"),
          list(data, "requestheader-extra-headers-prefix"));
    }

    private static List<String> list(Map<String, String> data, String key) {
      String json = data.get(key);
      if (json == null || json.isBlank()) {
        return List.of();
      }
      try {
        return List.copyOf(Responses.JSON.readValue(json, new TypeReference<List<String>>() {}));
      } catch (IOException e) {
        throw new IllegalArgumentException(CONFIG_MAP + " data." + key + ": not a JSON list", e);
      }
    }
  }

  /** A user the front proxy named. */
  record User(String name, String uid, List<String> groups, Map<String, List<String>> extra) {}

  private final KubernetesClient client;
  private final Trust trust = new Trust();
  private volatile Settings settings = Settings.NONE;
  private ScheduledExecutorService refresher;

  public FrontProxy(KubernetesClient client) {
    this.client = client;
  }

  /** Reads the API server's settings now and every minute from now on. */
  public synchronized FrontProxy start() {
    refresh();
    refresher =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "berth-front-proxy");
              t.setDaemon(true);
              return t;
            });
    refresher.scheduleWithFixedDelay(this::refresh, 60, 60, TimeUnit.SECONDS);
    return this;
  }

  /** Verifies a client certificate against the front-proxy CA in force at the handshake. */
  public X509ExtendedTrustManager trustManager() {
    return trust;
  }

  void refresh() {
    try {
      ConfigMap cm = client.configMaps().inNamespace(NAMESPACE).withName(CONFIG_MAP).get();
      use(cm == null || cm.getData() == null ? Settings.NONE : Settings.of(cm.getData()));
    } catch (KubernetesClientException | IllegalArgumentException | IllegalStateException e) {
      // Keep what was read last: a failed read must not stop requests that worked a minute ago.
      LOG.warn(
          "cannot read {}/{} (the aggregated visibility API needs it): {}",
          NAMESPACE,
          CONFIG_MAP,
          e.getMessage());
    }
  }

  synchronized void use(Settings next) {
    if (!next.cas().equals(settings.cas())) {
      trust.use(next.cas());
      LOG.info("front-proxy client CA: {} certificate(s)", next.cas().size());
    }
    settings = next;
  }

  /**
   * The user the front proxy names in a request, or null when the request came without a client
   * certificate (then it is not the front proxy's).
   *
   * @throws RequestIdentity.Unauthenticated a certificate whose name is not an allowed one, or no
   *     user header
   */
  User userOf(Request request) throws RequestIdentity.Unauthenticated {
    if (request.clientCertificates().isEmpty()) {
      return null;
    }
    Settings s = settings;
    String cn = commonName(request.clientCertificates().get(0));
    if (!s.allowedNames().isEmpty() && !s.allowedNames().contains(cn)) {
      throw new RequestIdentity.Unauthenticated(
          "client certificate CN=" + cn + " is not one of the front proxy's allowed names");
    }
    String user = first(request, s.userHeaders());
    if (user == null || user.isEmpty()) {
      throw new RequestIdentity.Unauthenticated("the front proxy named no user");
    }
    List<String> groups = new ArrayList<>();
    for (String h : s.groupHeaders()) {
      groups.addAll(request.header().all(h));
    }
    return new User(user, first(request, s.uidHeaders()), groups, extra(request, s));
  }

  private static String first(Request request, List<String> headers) {
    for (String h : headers) {
      String v = request.header().get(h);
      if (v != null && !v.isEmpty()) {
        return v;
      }
    }
    return null;
  }

  /** {@code X-Remote-Extra-<key>} headers: the key lower-cased and percent-decoded. */
  private static Map<String, List<String>> extra(Request request, Settings s) {
    Map<String, List<String>> extra = new LinkedHashMap<>();
    for (String name : new java.util.TreeSet<>(request.header().names())) {
      for (String prefix : s.extraPrefixes()) {
        if (name.length() > prefix.length()
            && name.regionMatches(true, 0, prefix, 0, prefix.length())) {
          String key =
              URLDecoder.decode(name.substring(prefix.length()), StandardCharsets.UTF_8)
                  .toLowerCase(Locale.ROOT);
          extra.computeIfAbsent(key, k -> new ArrayList<>()).addAll(request.header().all(name));
        }
      }
    }
    return extra;
  }

  static String commonName(X509Certificate certificate) {
    try {
      for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName()).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          return rdn.getValue().toString();
        }
      }
    } catch (InvalidNameException e) {
      return "";
    }
    return "";
  }

  @Override
  public synchronized void close() {
    if (refresher != null) {
      refresher.shutdownNow();
    }
  }

  /** A PKIX trust manager over the current CAs, swapped when they change; none trusts nobody. */
  private static final class Trust extends X509ExtendedTrustManager {
    private volatile X509ExtendedTrustManager delegate;

    void use(List<X509Certificate> cas) {
      if (cas.isEmpty()) {
        delegate = null;
        return;
      }
      try {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        for (int i = 0; i < cas.size(); i++) {
          store.setCertificateEntry("front-proxy-ca-" + i, cas.get(i));
        }
        TrustManagerFactory factory =
            TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        for (TrustManager tm : factory.getTrustManagers()) {
          if (tm instanceof X509ExtendedTrustManager x) {
            delegate = x;
            return;
          }
        }
        throw new IllegalStateException("no X509 trust manager");
      } catch (GeneralSecurityException | IOException e) {
        throw new IllegalStateException("cannot trust the front-proxy CA", e);
      }
    }

    private X509ExtendedTrustManager current() throws CertificateException {
      X509ExtendedTrustManager d = delegate;
      if (d == null) {
        throw new CertificateException(
            "no front-proxy client CA is known: client certificates" + " are not accepted");
      }
      return d;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      current().checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      current().checkClientTrusted(chain, authType, engine);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      current().checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      throw new CertificateException("only client certificates are checked here");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      throw new CertificateException("only client certificates are checked here");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      throw new CertificateException("only client certificates are checked here");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      X509ExtendedTrustManager d = delegate;
      return d == null ? new X509Certificate[0] : d.getAcceptedIssuers();
    }
  }
}
