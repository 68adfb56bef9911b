package dev.berth.engine.flavor;

import dev.berth.engine.quota.Quantity;
import dev.berth.engine.quota.QuotaNode;
import java.util.Comparator;

/**
 * The numbers behind "does not fit" on one flavor-resource; formatted only when read. {@code own}
 * is what the podSet itself asks for, {@code need} that plus what the podSets before it in the same
 * workload already take of the flavor-resource (all podSets are admitted together).
 */
record Shortfall(
    String podSet,
    String resource,
    String flavor,
    long own,
    long need,
    long available,
    long nominal,
    long inUse,
    String cohort,
    long potential,
    long borrowingLimit,
    boolean exceedsMax) {

  /**
   * The scarcest first: what can never fit, then the largest part of the need that is missing (a
   * GPU short by 8 of 8 before cpu short by 1 of 96), then extended resources before cpu and
   * memory. Other notes (flavor mismatches) keep their order after the shortfalls.
   */
  static final Comparator<Object> SCARCEST_FIRST =
      (a, b) -> {
        if (!(a instanceof Shortfall x) || !(b instanceof Shortfall y)) {
          return Boolean.compare(!(a instanceof Shortfall), !(b instanceof Shortfall));
        }
        if (x.exceedsMax != y.exceedsMax) {
          return x.exceedsMax ? -1 : 1;
        }
        int byMissing = Double.compare(y.missingFraction(), x.missingFraction());
        return byMissing != 0 ? byMissing : Boolean.compare(x.basic(), y.basic());
      };

  private double missingFraction() {
    return need <= 0 ? 0 : (double) (need - Math.max(0, available)) / need;
  }

  private boolean basic() {
    return resource.equals("cpu") || resource.equals("memory") || resource.equals("pods");
  }

  /** Unused nominal quota that others in the cohort use now: lent out, so not available. */
  long lent() {
    long unused = Math.max(0, nominal - inUse);
    return Math.max(0, unused - Math.max(0, available));
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    if (podSet != null) {
      sb.append("podSet ").append(podSet).append(": ");
    }
    sb.append("needs ")
        .append(resource)
        .append(' ')
        .append(fmt(own))
        .append(" on flavor ")
        .append(flavor);
    if (need != own) {
      sb.append(" (").append(fmt(need)).append(" with the podSets before it)");
    }
    if (exceedsMax) {
      sb.append("; at most ")
          .append(fmt(potential))
          .append(" could ever be available: nominal ")
          .append(fmt(nominal));
      if (cohort != null) {
        sb.append(
            borrowingLimit == QuotaNode.NONE
                ? ", plus what cohort " + cohort + " can lend"
                : ", borrowing limit " + fmt(borrowingLimit) + " from cohort " + cohort);
      }
      return sb.toString();
    }
    long shown = Math.max(0, available);
    sb.append("; ").append(fmt(shown)).append(" available: nominal ").append(fmt(nominal));
    sb.append(", in use ").append(fmt(inUse));
    if (inUse > nominal && cohort != null) {
      sb.append(" (").append(fmt(inUse - nominal)).append(" borrowed)");
    }
    if (cohort != null) {
      long lent = lent();
      if (lent > 0) {
        sb.append(", ").append(fmt(lent)).append(" lent to cohort ").append(cohort);
      }
      long mayBorrow = Math.max(0, shown - Math.max(0, nominal - inUse));
      sb.append(", may borrow ").append(fmt(mayBorrow)).append(" from cohort ").append(cohort);
    }
    return sb.toString();
  }

  private String fmt(long v) {
    return Quantity.format(resource, v);
  }
}
