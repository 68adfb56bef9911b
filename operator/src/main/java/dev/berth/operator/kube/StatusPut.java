package dev.berth.operator.kube;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A status write (PUT of the status subresource, with the copy's resourceVersion) whose reply is
 * read only as far as its {@code metadata.resourceVersion}: the object written is the copy sent
 * with the version the API server gave it. {@code client.resource(copy).updateStatus()} decodes the
 * whole reply, about 4 KB of a Workload of the baseline load, into a new object, on the client's
 * event loop; on the 15,000-workload baseline that was 7 % of the operator's CPU (two such writes
 * per workload, its admission and its usage record).
 *
 * <p>Why the copy is what the API server stored: the write carries the resourceVersion it was made
 * from, so it succeeds only on that version; a status write takes the status from the request and
 * keeps the stored spec, which at that version is the copy's (a status copy shares the cached spec,
 * {@link Copies#forStatus}); the CRDs declare no defaults, and every field the model writes is in
 * their schema, so nothing is added or pruned. The one difference left is managedFields, which the
 * operator's decoding drops anyway ({@link SkipManagedFields}). A reply whose version cannot be
 * found where the API server puts it (not expected) is decoded whole. What this assumes: no
 * mutating webhook rewrites a Workload's status on its way in (the chart registers validating
 * webhooks only; one that rewrote the status the operator writes would change admissions under it
 * whatever the operator read back).
 *
 * <p>It goes through the client's own HTTP client, so credentials, token refresh, its rate limit
 * and its retries are fabric8's (the operator's writers pass a client with the retry off: a re-sent
 * write that was applied answers 409, see BerthOperator.writingClient); a failure is a {@link
 * KubernetesClientException} with the HTTP code, as from fabric8 (0 or less when there was no
 * answer).
 */
public final class StatusPut {
  private static final JsonFactory JSON = new JsonFactory();

  private StatusPut() {}

  /** Writes {@code copy}'s status; returns {@code copy}, now at the version the server gave it. */
  public static <T extends HasMetadata> T replace(KubernetesClient client, T copy) {
    return replace(client, copy, copy);
  }

  /**
   * Writes {@code copy}'s status by sending {@code body}, the same object without what the API
   * server ignores in a status write (its spec); returns {@code copy} at the version it was given.
   */
  public static <T extends HasMetadata> T replace(
      KubernetesClient client, T copy, HasMetadata body) {
    KubernetesSerialization serialization = client.getKubernetesSerialization();
    HttpClient http = client.getHttpClient();
    HttpRequest.Builder request =
        http.newHttpRequestBuilder()
            .uri(statusUrl(client.getMasterUrl().toString(), copy))
            .put("application/json", serialization.asJson(body));
    // The request's own deadline, as fabric8 sets it; the wait for the answer has none, as
    // fabric8's has none: a deadline here while the client still retries would call a write
    // unknown that may yet land.
    int timeoutMs = client.getConfiguration().getRequestTimeout();
    if (timeoutMs > 0) {
      request.timeout(timeoutMs, TimeUnit.MILLISECONDS);
    }
    HttpResponse<byte[]> response = send(http, request.build());
    byte[] reply = response.body();
    if (!response.isSuccessful()) {
      throw failure(serialization, response.code(), reply);
    }
    String version = resourceVersion(reply, copy.getMetadata().getUid());
    if (version == null) {
      @SuppressWarnings("unchecked")
      Class<T> type = (Class<T>) copy.getClass();
      return serialization.unmarshal(new String(reply, StandardCharsets.UTF_8), type);
    }
    copy.getMetadata().setResourceVersion(version);
    return copy;
  }

  /**
   * The status subresource's path of a namespaced or cluster-scoped object of a custom kind. Built
   * by concatenation: fabric8's {@code URLUtils.join} parses and normalizes a URI for each part,
   * which was a fifth of these writes' own CPU on the baseline load; names, namespaces and the
   * kind's path segments are DNS labels and subdomains, which need no escaping.
   */
  static String statusUrl(String master, HasMetadata object) {
    String base = master.endsWith("/") ? master.substring(0, master.length() - 1) : master;
    Class<? extends HasMetadata> type = object.getClass();
    String[] segments = SEGMENTS.computeIfAbsent(type, StatusPut::segments);
    String namespace = object.getMetadata().getNamespace();
    StringBuilder url = new StringBuilder(base.length() + 128).append(base).append(segments[0]);
    if (namespace != null) {
      url.append("/namespaces/").append(namespace);
    }
    return url.append(segments[1])
        .append(object.getMetadata().getName())
        .append("/status")
        .toString();
  }

  private static final Map<Class<?>, String[]> SEGMENTS = new ConcurrentHashMap<>();

  /** "/apis/group/version" (or "/api/version") and "/plural/" of a kind. */
  private static String[] segments(Class<?> type) {
    @SuppressWarnings("unchecked")
    Class<? extends HasMetadata> kind = (Class<? extends HasMetadata>) type;
    String group = HasMetadata.getGroup(kind);
    String version = HasMetadata.getVersion(kind);
    String api = group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
    return new String[] {api, "/" + HasMetadata.getPlural(kind) + "/"};
  }

  private static HttpResponse<byte[]> send(HttpClient http, HttpRequest request) {
    try {
      return http.sendAsync(request, byte[].class).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubernetesClientException("interrupted", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof KubernetesClientException known) {
        throw known;
      }
      throw new KubernetesClientException(cause.toString(), cause);
    }
  }

  /** The API server's Status when the body is one, else the bare code. */
  private static KubernetesClientException failure(
      KubernetesSerialization serialization, int code, byte[] body) {
    try {
      Status status =
          serialization.unmarshal(new String(body, StandardCharsets.UTF_8), Status.class);
      if (status != null && status.getMessage() != null) {
        status.setCode(code);
        return new KubernetesClientException(status);
      }
    } catch (RuntimeException notAStatus) {
      // fall through: the code is what the callers decide on
    }
    return new KubernetesClientException("HTTP " + code, code, null);
  }

  /**
   * The top-level {@code metadata.resourceVersion} of a reply, read no further than the metadata
   * field that completes it and the uid; null when it is absent or the reply's uid is not {@code
   * uid}.
   */
  static String resourceVersion(byte[] body, String uid) {
    try (JsonParser p = JSON.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if (!"metadata".equals(field) || value != JsonToken.START_OBJECT) {
          p.skipChildren();
          continue;
        }
        String version = null;
        String replyUid = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          JsonToken token = p.nextToken();
          if ("resourceVersion".equals(name) && token == JsonToken.VALUE_STRING) {
            version = p.getText();
          } else if ("uid".equals(name) && token == JsonToken.VALUE_STRING) {
            replyUid = p.getText();
          } else {
            p.skipChildren();
          }
          if (version != null && (uid == null || replyUid != null)) {
            break; // the API server writes both before managedFields, most of the metadata
          }
        }
        boolean sameObject = uid == null || uid.equals(replyUid);
        return sameObject ? version : null;
      }
      return null;
    } catch (IOException e) {
      return null;
    }
  }
}
