package dev.berth.engine;

/**
 * The default entry order: entries that do not borrow before those that do, then priority (high
 * first), then queue timestamp, then UID (a total order, so decisions are deterministic).
 */
public final class BorrowingLastOrdering implements EntryOrdering {
  @Override
  public int compare(Entry a, Entry b) {
    int c = Boolean.compare(a.borrows(), b.borrows());
    if (c != 0) {
      return c;
    }
    c = Integer.compare(b.priority(), a.priority());
    if (c != 0) {
      return c;
    }
    c = Long.compare(a.queueTimestamp(), b.queueTimestamp());
    return c != 0 ? c : a.workloadUid().compareTo(b.workloadUid());
  }
}
