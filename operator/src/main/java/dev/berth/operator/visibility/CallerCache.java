package dev.berth.operator.visibility;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Authenticated callers by token for a few seconds, with the answers of their SubjectAccessReviews:
 * a dashboard that polls every 3 s then costs one TokenReview, and one review per namespace shown,
 * every {@link #TTL}, not every poll. A revoked token or binding is noticed within that time.
 * Tokens are kept as SHA-256 digests only; unauthenticated tokens are never kept. Users named by
 * the front proxy are kept the same way, by a digest of their name, uid, groups and extra.
 */
final class CallerCache {
  static final Duration TTL = Duration.ofSeconds(10);
  private static final int MAX_CALLERS = 1024;

  private record Entry(RequestIdentity identity, long expiresAt) {}

  private final KubernetesClient client;
  private final Clock clock;
  private final Map<String, Entry> entries = new LinkedHashMap<>();

  CallerCache(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /** The caller of the token, or null when the API server does not authenticate it. */
  RequestIdentity of(String token) {
    return cached(digest(token), () -> RequestIdentity.of(client, token));
  }

  /**
   * A user the API server's front proxy named, kept like a token's caller so that its
   * SubjectAccessReviews are not asked again on every request.
   */
  RequestIdentity of(FrontProxy.User user) {
    return cached(digest("front-proxy\0" + user), () -> RequestIdentity.of(client, user));
  }

  private RequestIdentity cached(String key, java.util.function.Supplier<RequestIdentity> review) {
    long now = clock.millis();
    synchronized (entries) {
      Entry e = entries.get(key);
      if (e != null && e.expiresAt() > now) {
        return e.identity();
      }
    }
    RequestIdentity identity = review.get();
    if (identity != null) {
      synchronized (entries) {
        entries.values().removeIf(e -> e.expiresAt() <= now);
        entries.remove(key);
        entries.put(key, new Entry(identity, now + TTL.toMillis()));
        Iterator<String> oldest = entries.keySet().iterator();
        while (entries.size() > MAX_CALLERS) {
          oldest.next();
          oldest.remove();
        }
      }
    }
    return identity;
  }

  private static String digest(String token) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
