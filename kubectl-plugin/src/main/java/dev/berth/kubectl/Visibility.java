package dev.berth.kubectl;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The operator's visibility API (docs/visibility.md). By default through the Kubernetes API server,
 * as the aggregated API {@code visibility.berth.dev/v1beta1} ({@code kubectl get --raw}): the
 * user's kubeconfig, however it authenticates, and no network path to the operator needed. With
 * {@code --visibility-url}, straight to the operator's HTTPS port with the user's bearer token,
 * which the operator checks with a TokenReview. Either way a SubjectAccessReview per namespace
 * shows the user what kubectl would let them list.
 */
final class Visibility {
  /** The aggregated API's root path, as the API server serves it. */
  static final String API = "/apis/visibility.berth.dev/v1beta1";

  /** The API answered with an error, or could not be reached; the message says which. */
  static final class Failure extends RuntimeException {
    Failure(String message) {
      super(message);
    }
  }

  private final String base;
  private final String caFile;
  private final String token;
  private final Kubectl kubectl;

  /**
   * @param caFile PEM certificates to trust for the operator's HTTPS port (its serving certificate
   *     is the webhook's, signed by the chart's or cert-manager's CA), or null for the JVM's trust
   *     store
   */
  Visibility(String base, String caFile, String token) {
    this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
    this.caFile = caFile;
    this.token = token;
    this.kubectl = null;
  }

  /** Through the API server, with the kubeconfig kubectl uses. */
  Visibility(Kubectl kubectl) {
    this.base = null;
    this.caFile = null;
    this.token = null;
    this.kubectl = kubectl;
  }

  JsonNode clusterQueue(String name) {
    return get(API + "/clusterqueues/" + enc(name) + "/pendingworkloads");
  }

  JsonNode localQueue(String namespace, String name) {
    return get(
        API + "/namespaces/" + enc(namespace) + "/localqueues/" + enc(name) + "/pendingworkloads");
  }

  private JsonNode get(String path) {
    if (kubectl != null) {
      try {
        return Kubectl.await(kubectl.raw(path));
      } catch (Kubectl.Failure e) {
        throw new Failure(
            "visibility API "
                + path
                + " through the API server: "
                + e.getMessage()
                + " (is the chart's APIService v1beta1.visibility.berth.dev Available? kubectl get"
                + " apiservice v1beta1.visibility.berth.dev; or call the operator directly with"
                + " --visibility-url)");
      }
    }
    return direct(path);
  }

  private JsonNode direct(String path) {
    HttpURLConnection c;
    try {
      c = (HttpURLConnection) URI.create(base + path).toURL().openConnection();
      if (caFile != null && c instanceof HttpsURLConnection https) {
        https.setSSLSocketFactory(trusting(caFile).getSocketFactory());
      }
      c.setConnectTimeout(5_000);
      c.setReadTimeout(10_000);
      c.setRequestProperty("Authorization", "Bearer " + token);
      c.setRequestProperty("Accept", "application/json");
      int code = c.getResponseCode();
      InputStream body = code >= 400 ? c.getErrorStream() : c.getInputStream();
      JsonNode json = body == null ? null : Kubectl.JSON.readTree(body);
      if (code != 200) {
        String message = json != null && json.has("message") ? json.get("message").asText() : "";
        throw new Failure(
            "visibility API "
                + base
                + path
                + " answered "
                + code
                + (message.isEmpty() ? "" : ": " + message));
      }
      return json;
    } catch (IOException e) {
      throw new Failure(
          "cannot reach the visibility API at "
              + base
              + " ("
              + e.getMessage()
              + "); check --visibility-url or BERTH_VISIBILITY_URL (e.g. "
              + ChartDefaults.VISIBILITY_URL
              + " from inside the cluster), or unset both to go through the API server");
    }
  }

  /** A TLS context that trusts exactly the certificates in {@code pemFile}. */
  private static SSLContext trusting(String pemFile) {
    try (InputStream in = Files.newInputStream(Path.of(pemFile))) {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      int n = 0;
      for (Certificate cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        store.setCertificateEntry("ca-" + n++, cert);
      }
      if (n == 0) {
        throw new Failure("--visibility-ca " + pemFile + ": no PEM certificate in it");
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, tmf.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new Failure("--visibility-ca " + pemFile + ": " + e.getMessage());
    }
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
