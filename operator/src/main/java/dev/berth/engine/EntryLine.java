package dev.berth.engine;

import java.util.List;

/**
 * The nominated entries of a cycle not decided yet, handed out in the cycle's order (step 4):
 * {@link OrderedLine} for a plain {@link EntryOrdering}, {@link FairSharingTournament} for fair
 * sharing, whose order in a cohort tree is not a comparison of two entries alone.
 */
interface EntryLine {
  void add(Entry e);

  /** The next entry in order, taken out of the line; null when empty. */
  Entry poll();

  /** Takes every entry out, in no particular order. */
  List<Entry> drain();
}
