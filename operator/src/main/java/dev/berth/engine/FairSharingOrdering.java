package dev.berth.engine;

/**
 * Fair-sharing entry order: the entry whose ClusterQueue would have the lowest weighted
 * dominant-resource share after admitting it goes first; ties fall back to {@link
 * BorrowingLastOrdering}. Within a cohort tree the cycle orders by {@link FairSharingTournament},
 * level by level with the cohorts' weights; this order decides among the trees' nominees and
 * ClusterQueues without a cohort. Opt in with {@code new AdmissionEngine(new FairSharingOrdering(),
 * new FairSharingPreemption(strategies))}.
 */
public final class FairSharingOrdering implements EntryOrdering {
  private final BorrowingLastOrdering tieBreak = new BorrowingLastOrdering();

  @Override
  public int compare(Entry a, Entry b) {
    int c = Long.compare(a.shareAfterAdmission(), b.shareAfterAdmission());
    return c != 0 ? c : tieBreak.compare(a, b);
  }
}
