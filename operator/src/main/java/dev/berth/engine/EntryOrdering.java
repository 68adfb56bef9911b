package dev.berth.engine;

import java.util.Comparator;

/**
 * Step 4 of the cycle: the order in which nominated entries are applied. Fair sharing plugs in here
 * (order by dominant-resource share after admission) without touching the cycle.
 */
public interface EntryOrdering extends Comparator<Entry> {}
