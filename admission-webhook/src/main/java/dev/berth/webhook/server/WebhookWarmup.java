package dev.berth.webhook.server;

import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the server a few AdmissionReviews of its own over loopback before the process reports
 * ready, so the API server's first calls do not pay for the cold path: the TLS and HTTP/2 server
 * code, the review codec and the validators are loaded and run once here. On a busy 2-core machine
 * the image's first validating call took over the API server's 10 s webhook timeout
 * (ImageInContainerIT, two cores kept busy); a request refused then is a user's create refused.
 *
 * <p>The client trusts any certificate: it talks only to this process on 127.0.0.1, sends fixed
 * objects and reads nothing from the answers but that one came. Each call is bounded; a failed
 * warm-up is logged and changes nothing else.
 */
public final class WebhookWarmup {
  private static final Logger LOG = LoggerFactory.getLogger(WebhookWarmup.class);
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

  /** A ClusterQueue the validator refuses (one resource in two groups): the whole error path. */
  private static final String CLUSTER_QUEUE =
      """
      {"apiVersion":"berth.dev/v1beta1","kind":"ClusterQueue","metadata":{"name":"berth-warmup"},
       "spec":{"resourceGroups":[
        {"coveredResources":["cpu"],"flavors":[{"name":"a","resources":[{"name":"cpu","nominalQuota":"1"}]}]},
        {"coveredResources":["cpu"],"flavors":[{"name":"b","resources":[{"name":"cpu","nominalQuota":"1"}]}]}]}}
      """;

  private static final String LOCAL_QUEUE =
      """
      {"apiVersion":"berth.dev/v1beta1","kind":"LocalQueue",
       "metadata":{"name":"berth-warmup","namespace":"berth-warmup"},"spec":{"clusterQueue":"x"}}
      """;

  private WebhookWarmup() {}

  /** A path warmed, the object sent to it and that object's kind. */
  record Call(String path, String object, String kind) {}

  static final List<Call> CALLS =
      List.of(
          new Call(WebhookPaths.VALIDATE_CLUSTER_QUEUE, CLUSTER_QUEUE, "ClusterQueue"),
          new Call(WebhookPaths.MUTATE_CLUSTER_QUEUE, CLUSTER_QUEUE, "ClusterQueue"),
          new Call(WebhookPaths.VALIDATE_LOCAL_QUEUE, LOCAL_QUEUE, "LocalQueue"));

  /** Warms the server on {@code port}; returns how many calls were answered. */
  public static int warm(int port) {
    long started = System.nanoTime();
    int answered = 0;
    try {
      HttpClient client =
          HttpClient.newBuilder()
              .sslContext(trustingLoopback())
              .version(HttpClient.Version.HTTP_2)
              .connectTimeout(CALL_TIMEOUT)
              .build();
      int n = 0;
      for (Call call : CALLS) {
        HttpRequest request =
            HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + call.path()))
                .timeout(CALL_TIMEOUT)
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        review("warmup-" + n++, call.object(), call.kind())))
                .build();
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          answered++;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.warn("webhook warm-up: {} (the first real calls are slower)", e.toString());
    }
    LOG.info(
        "webhook warm-up: {} of {} reviews answered in {} ms",
        answered,
        CALLS.size(),
        (System.nanoTime() - started) / 1_000_000);
    return answered;
  }

  static String review(String uid, String object, String kind) {
    return """
        {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
         "uid":"%s","kind":{"group":"berth.dev","version":"v1beta1","kind":"%s"},
         "resource":{"group":"berth.dev","version":"v1beta1","resource":"%ss"},
         "operation":"CREATE","userInfo":{"username":"system:berth-warmup"},
         "object":%s}}
        """
        .formatted(uid, kind, kind.toLowerCase(java.util.Locale.ROOT), object);
  }

  private static SSLContext trustingLoopback() throws Exception {
    // Extended, so that JSSE does not add a host name check of its own (the serving certificate
    // names the Service, not 127.0.0.1).
    TrustManager any =
        new X509ExtendedTrustManager() {
          @Override
          public void checkClientTrusted(X509Certificate[] chain, String authType) {}

          @Override
          public void checkServerTrusted(X509Certificate[] chain, String authType) {}

          @Override
          public void checkClientTrusted(X509Certificate[] chain, String authType, Socket s) {}

          @Override
          public void checkServerTrusted(X509Certificate[] chain, String authType, Socket s) {}

          @Override
          public void checkClientTrusted(
              X509Certificate[] chain, String authType, SSLEngine engine) {}

          @Override
          public void checkServerTrusted(
              X509Certificate[] chain, String authType, SSLEngine engine) {}

          @Override
          public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
          }
        };
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, new TrustManager[] {any}, new SecureRandom());
    return tls;
  }
}
