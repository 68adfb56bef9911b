package dev.berth.kubectl;

import java.util.ArrayList;
import java.util.List;

/**
 * An aligned table as kubectl prints them: upper-case headers, columns padded to the widest cell,
 * three spaces apart. Colour (ANSI) only when asked, i.e. on a terminal: a cell may carry a colour,
 * which does not count towards its width.
 */
final class Table {
  enum Colour {
    NONE(""),
    RED("\u001b[31m"),
    YELLOW("\u001b[33m"),
    GREEN("\u001b[32m"),
    DIM("\u001b[2m"),
    BOLD("\u001b[1m");

    final String code;

    Colour(String code) {
      this.code = code;
    }
  }

  record Cell(String text, Colour colour) {}

  private final List<String> headers;
  private final List<List<Cell>> rows = new ArrayList<>();

  Table(String... headers) {
    this.headers = List.of(headers);
  }

  Table row(Object... cells) {
    List<Cell> row = new ArrayList<>();
    for (Object c : cells) {
      row.add(c instanceof Cell cell ? cell : new Cell(c == null ? "" : c.toString(), Colour.NONE));
    }
    rows.add(row);
    return this;
  }

  static Cell coloured(String text, Colour colour) {
    return new Cell(text, colour);
  }

  boolean isEmpty() {
    return rows.isEmpty();
  }

  String render(boolean colour) {
    int[] width = new int[headers.size()];
    for (int i = 0; i < width.length; i++) {
      width[i] = headers.get(i).length();
    }
    for (List<Cell> row : rows) {
      for (int i = 0; i < row.size() && i < width.length; i++) {
        width[i] = Math.max(width[i], row.get(i).text().length());
      }
    }
    StringBuilder out = new StringBuilder();
    List<Cell> head = headers.stream().map(h -> new Cell(h, Colour.BOLD)).toList();
    line(out, head, width, colour);
    for (List<Cell> row : rows) {
      line(out, row, width, colour);
    }
    return out.toString();
  }

  private static void line(StringBuilder out, List<Cell> row, int[] width, boolean colour) {
    StringBuilder l = new StringBuilder();
    for (int i = 0; i < row.size(); i++) {
      Cell c = row.get(i);
      boolean last = i == row.size() - 1;
      if (colour && c.colour() != Colour.NONE) {
        l.append(c.colour().code).append(c.text()).append("\u001b[0m");
      } else {
        l.append(c.text());
      }
      if (!last) {
        l.append(" ".repeat(width[i] - c.text().length() + 3));
      }
    }
    out.append(l.toString().stripTrailing()).append('\n');
  }
}
