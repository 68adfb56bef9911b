package dev.berth.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/** Entries in the order of one comparator. */
final class OrderedLine implements EntryLine {
  private final PriorityQueue<Entry> entries;

  OrderedLine(Comparator<Entry> ordering) {
    entries = new PriorityQueue<>(ordering);
  }

  @Override
  public void add(Entry e) {
    entries.add(e);
  }

  @Override
  public Entry poll() {
    return entries.poll();
  }

  @Override
  public List<Entry> drain() {
    List<Entry> all = new ArrayList<>(entries);
    entries.clear();
    return all;
  }
}
