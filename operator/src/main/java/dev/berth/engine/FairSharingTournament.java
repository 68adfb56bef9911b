package dev.berth.engine;

import dev.berth.engine.flavor.Assignment;
import dev.berth.engine.quota.FlavorResources;
import dev.berth.engine.quota.QuotaNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Fair sharing's order of entries in a cohort tree (Kueue's tournament). Every cohort nominates one
 * entry: among its children (its ClusterQueues' entries and its child cohorts' nominees), the one
 * whose child would have the lowest weighted share after admitting it, the child's share computed
 * at the child's own level ({@link DominantResourceShare}), so a cohort's weight counts against its
 * siblings only. The root's nominee goes next. A preemptor whose victims are gone beats everyone at
 * every level; ties go to the {@link BorrowingLastOrdering}. Roots (separate trees, and
 * ClusterQueues without a cohort) share no quota; their nominees go in {@link FairSharingOrdering}.
 *
 * <p>Each cohort keeps its children sorted, so taking an entry or adding one re-sorts only the
 * cohorts above its ClusterQueue. The shares of those cohorts change when the entry taken last is
 * admitted: that path is re-sorted before the next entry is added or taken. Nothing else moves a
 * share during a cycle: a ClusterQueue's share depends on its own usage and its parent's quota, and
 * usage changes only by admitting the entry taken last.
 */
final class FairSharingTournament implements EntryLine {
  private static final BorrowingLastOrdering TIE_BREAK = new BorrowingLastOrdering();

  private static final Comparator<Contender> IN_COHORT =
      Comparator.<Contender, Boolean>comparing(c -> !c.nominee.reserved)
          .thenComparingLong(c -> c.share)
          .thenComparing(c -> c.nominee, TIE_BREAK);

  private final FlavorResources frs;
  private final TreeSet<Contender> roots;

  /** The children of each cohort with an entry below it, and its own contender in its parent. */
  private final Map<QuotaNode, Level> levels = new HashMap<>();

  /** Each entry's contender in its ClusterQueue's parent. */
  private final Map<Entry, Contender> leaves = new IdentityHashMap<>();

  /** The ClusterQueue of the entry taken last, whose cohorts' shares may have moved since. */
  private QuotaNode moved;

  /** {@code acrossRoots}: the order of the roots' nominees. */
  FairSharingTournament(FlavorResources frs, Comparator<Entry> acrossRoots) {
    this.frs = frs;
    this.roots =
        new TreeSet<>(
            Comparator.<Contender, Boolean>comparing(c -> !c.nominee.reserved)
                .thenComparing(c -> c.nominee, acrossRoots));
  }

  /** A child of a cohort (or a root) with the entry it nominates and its share with it. */
  private static final class Contender {
    final QuotaNode node;
    Entry nominee;
    long share;

    Contender(QuotaNode node) {
      this.node = node;
    }
  }

  private static final class Level {
    final TreeSet<Contender> children = new TreeSet<>(IN_COHORT);
    Contender self;
  }

  @Override
  public void add(Entry e) {
    settleMoved();
    QuotaNode q = e.queue.node;
    Contender c = new Contender(q);
    c.nominee = e;
    c.share = e.shareAfterAdmission();
    leaves.put(e, c);
    QuotaNode parent = q == null ? null : q.parent();
    if (parent == null) {
      roots.add(c);
      return;
    }
    levels.computeIfAbsent(parent, p -> new Level()).children.add(c);
    renominate(parent);
  }

  @Override
  public Entry poll() {
    settleMoved();
    if (roots.isEmpty()) {
      return null;
    }
    Entry e = roots.first().nominee;
    Contender c = leaves.remove(e);
    QuotaNode parent = c.node == null ? null : c.node.parent();
    if (parent == null) {
      roots.remove(c);
    } else {
      levels.get(parent).children.remove(c);
      renominate(parent);
    }
    moved = c.node;
    return e;
  }

  @Override
  public List<Entry> drain() {
    List<Entry> all = new ArrayList<>(leaves.keySet());
    leaves.clear();
    levels.clear();
    roots.clear();
    moved = null;
    return all;
  }

  private void settleMoved() {
    if (moved != null && moved.parent() != null) {
      renominate(moved.parent());
    }
    moved = null;
  }

  /**
   * Cohort {@code n} and each cohort above it: its nominee is its best child's, and its share is
   * its own with that nominee admitted. Each is taken out of its parent's children before its key
   * changes and put back after.
   */
  private void renominate(QuotaNode n) {
    for (; n != null; n = n.parent()) {
      Level level = levels.get(n);
      if (level == null) {
        return;
      }
      QuotaNode parent = n.parent();
      Level above = parent == null ? null : levels.computeIfAbsent(parent, p -> new Level());
      TreeSet<Contender> siblings = above == null ? roots : above.children;
      if (level.self != null) {
        siblings.remove(level.self);
      }
      if (level.children.isEmpty()) {
        levels.remove(n);
        level.self = null;
        continue;
      }
      Contender self = level.self == null ? new Contender(n) : level.self;
      self.nominee = level.children.first().nominee;
      Assignment a = self.nominee.assignment;
      self.share =
          a == null || a.frs() == null
              ? DominantResourceShare.of(n, frs, n, null, null)
              : DominantResourceShare.of(n, frs, self.nominee.queue.node, a.frs(), a.usage());
      level.self = self;
      siblings.add(self);
    }
  }
}
