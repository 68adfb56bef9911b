package dev.berth.webhook.authz;

import dev.berth.webhook.validation.CheckStateGrants;
import dev.berth.webhook.validation.RequestUser;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Remembers "allowed" for a short time so that a check controller writing many Workloads does not
 * cost one SubjectAccessReview each. Only grants are remembered: a refusal is asked again every
 * time, so a new grant works at once, and a revoked grant stops working at most {@code ttl} after
 * it was last confirmed. Failures are never remembered.
 */
public final class CachedGrants implements CheckStateGrants {
  /** How long a confirmed grant is trusted; the bound on how late a revocation takes effect. */
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(10);

  // A bound on memory under a flood of distinct identities; past it, everything is asked again.
  static final int MAX_ENTRIES = 4096;

  private record Key(RequestUser user, String check) {}

  private final CheckStateGrants authority;
  private final long ttlNanos;
  private final LongSupplier nanoTime;
  private final Map<Key, Long> confirmedAt = new ConcurrentHashMap<>();

  public CachedGrants(CheckStateGrants authority, Duration ttl) {
    this(authority, ttl, System::nanoTime);
  }

  CachedGrants(CheckStateGrants authority, Duration ttl, LongSupplier nanoTime) {
    this.authority = authority;
    this.ttlNanos = ttl.toNanos();
    this.nanoTime = nanoTime;
  }

  @Override
  public boolean mayWriteState(RequestUser user, String check) {
    Key key = new Key(user, check);
    long now = nanoTime.getAsLong();
    Long at = confirmedAt.get(key);
    if (at != null && now - at < ttlNanos) {
      return true;
    }
    confirmedAt.remove(key);
    boolean allowed = authority.mayWriteState(user, check);
    if (allowed) {
      if (confirmedAt.size() >= MAX_ENTRIES) {
        confirmedAt.clear();
      }
      confirmedAt.put(key, now);
    }
    return allowed;
  }
}
