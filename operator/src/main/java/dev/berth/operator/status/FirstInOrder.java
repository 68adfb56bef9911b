package dev.berth.operator.status;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The first {@code n} elements of a list in an order, ties kept in list order, as a stable sort of
 * the whole list would give them, without sorting it: a pass of {@link PendingConditions} has
 * thousands of candidates and a budget for a handful of writes, and sorting them all at each pass
 * was a sixth of the pass's cost on the 15,000-workload benchmark.
 */
final class FirstInOrder {
  private FirstInOrder() {}

  /** The first {@code n} in order, and the others in list order. */
  record Split<T>(List<T> first, List<T> rest) {}

  static <T> Split<T> split(List<T> all, int n, Comparator<? super T> order) {
    if (n <= 0) {
      return new Split<>(List.of(), all);
    }
    // Indexes break ties, so the choice is the stable sort's.
    Comparator<Integer> byOrder =
        (a, b) -> {
          int c = order.compare(all.get(a), all.get(b));
          return c != 0 ? c : Integer.compare(a, b);
        };
    // The n best so far, the worst of them at the head.
    PriorityQueue<Integer> kept =
        new PriorityQueue<>(Math.min(n, all.size()) + 1, byOrder.reversed());
    for (int i = 0; i < all.size(); i++) {
      if (kept.size() < n) {
        kept.add(i);
      } else if (byOrder.compare(i, kept.peek()) < 0) {
        kept.poll();
        kept.add(i);
      }
    }
    boolean[] chosen = new boolean[all.size()];
    List<Integer> firstIndexes = new ArrayList<>(kept);
    firstIndexes.sort(byOrder);
    List<T> first = new ArrayList<>(firstIndexes.size());
    for (int i : firstIndexes) {
      chosen[i] = true;
      first.add(all.get(i));
    }
    List<T> rest = new ArrayList<>(all.size() - first.size());
    for (int i = 0; i < all.size(); i++) {
      if (!chosen[i]) {
        rest.add(all.get(i));
      }
    }
    return new Split<>(first, rest);
  }
}
