package dev.berth.engine.flavor;

import dev.berth.engine.quota.Quantity;
import dev.berth.engine.quota.QuotaNode;

/** The numbers behind "does not fit" on one flavor-resource; formatted only when read. */
record Shortfall(
    String podSet,
    String resource,
    String flavor,
    long need,
    long available,
    long nominal,
    long inUse,
    String cohort,
    long potential,
    long borrowingLimit,
    boolean exceedsMax) {

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    if (podSet != null) {
      sb.append("podSet ").append(podSet).append(": ");
    }
    sb.append("needs ").append(resource).append(' ').append(fmt(need)).append(" on flavor ").append(flavor);
    if (exceedsMax) {
      sb.append("; at most ").append(fmt(potential)).append(" could ever be available: nominal ").append(fmt(nominal));
      if (cohort != null) {
        sb.append(borrowingLimit == QuotaNode.NONE
            ? ", plus what cohort " + cohort + " can lend"
            : ", borrowing limit " + fmt(borrowingLimit) + " from cohort " + cohort);
      }
      return sb.toString();
    }
    long shown = Math.max(0, available);
    sb.append("; ").append(fmt(shown)).append(" available: nominal ").append(fmt(nominal));
    sb.append(", in use ").append(fmt(inUse));
    if (cohort != null) {
      long mayBorrow = Math.max(0, shown - Math.max(0, nominal - inUse));
      sb.append(", may borrow ").append(fmt(mayBorrow)).append(" from cohort ").append(cohort);
    }
    return sb.toString();
  }

  private String fmt(long v) {
    return Quantity.format(resource, v);
  }
}
