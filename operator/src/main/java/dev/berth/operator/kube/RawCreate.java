package dev.berth.operator.kube;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.URLUtils;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A create sent as JSON its caller wrote, through the client's own HTTP client (its credentials,
 * interceptors and retries), with only the status of the reply read: fabric8's DSL would build the
 * object with builders, serialize it through the model, and decode the object the API server sends
 * back into a new one nobody reads (the operator's Events, one per admission made, see {@code
 * EventPoster}).
 */
public final class RawCreate {
  private static final long DEFAULT_TIMEOUT_MS = 30_000;

  private RawCreate() {}

  /**
   * POSTs {@code json} to the API server's path made of {@code segments} (joined by fabric8);
   * throws a {@link KubernetesClientException} with the HTTP code when it is not created, or
   * without one when no answer came within the client's request timeout (30 s when it has none).
   */
  public static void post(KubernetesClient client, byte[] json, String... segments) {
    HttpClient http = client.getHttpClient();
    String[] parts = new String[segments.length + 1];
    parts[0] = client.getMasterUrl().toString();
    System.arraycopy(segments, 0, parts, 1, segments.length);
    HttpRequest request =
        http.newHttpRequestBuilder()
            .uri(URLUtils.join(parts))
            .post("application/json", json)
            .build();
    int timeoutMs = client.getConfiguration().getRequestTimeout();
    HttpResponse<byte[]> response;
    try {
      response =
          http.sendAsync(request, byte[].class)
              .get(timeoutMs > 0 ? timeoutMs : DEFAULT_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubernetesClientException("interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new KubernetesClientException(e.toString(), e);
    }
    if (!response.isSuccessful()) {
      throw new KubernetesClientException("HTTP " + response.code(), response.code(), null);
    }
  }
}
