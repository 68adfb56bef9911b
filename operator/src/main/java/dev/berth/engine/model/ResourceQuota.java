package dev.berth.engine.model;

import java.util.Objects;

/**
 * Quota of one resource on one flavor, in canonical units (see {@code Quantity}). A {@code null}
 * borrowingLimit means "may borrow without bound"; a {@code null} lendingLimit means "lends all
 * unused quota".
 */
public record ResourceQuota(
    String name, long nominalQuota, Long borrowingLimit, Long lendingLimit) {
  public ResourceQuota {
    Objects.requireNonNull(name, "name");
    if (nominalQuota < 0
        || (borrowingLimit != null && borrowingLimit < 0)
        || (lendingLimit != null && lendingLimit < 0)) {
      throw new IllegalArgumentException("quota of " + name + " must not be negative");
    }
  }

  public static ResourceQuota of(String name, long nominalQuota) {
    return new ResourceQuota(name, nominalQuota, null, null);
  }
}
