package dev.berth.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class FirstInOrderTest {
  /** Elements whose order looks at the key only, so that ties are many. */
  record Item(int key, int id) {}

  private static final Comparator<Item> BY_KEY = Comparator.comparingInt(Item::key);

  @Property
  void theFirstAreAStableSortsFirstAndTheRestKeepListOrder(
      @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 5) Integer> keys,
      @ForAll @IntRange(min = -1, max = 70) int n) {
    List<Item> all = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      all.add(new Item(keys.get(i), i));
    }
    List<Item> sorted = new ArrayList<>(all);
    sorted.sort(BY_KEY);
    int taken = Math.max(0, Math.min(n, all.size()));

    FirstInOrder.Split<Item> split = FirstInOrder.split(all, n, BY_KEY);

    assertThat(split.first()).containsExactlyElementsOf(sorted.subList(0, taken));
    List<Item> rest = new ArrayList<>(all);
    rest.removeAll(split.first());
    assertThat(split.rest()).containsExactlyElementsOf(rest);
  }

  @Test
  void twoOfFiveTiesGoInListOrder() {
    List<Item> all =
        List.of(new Item(3, 0), new Item(1, 1), new Item(2, 2), new Item(1, 3), new Item(1, 4));

    FirstInOrder.Split<Item> split = FirstInOrder.split(all, 2, BY_KEY);

    assertThat(split.first()).containsExactly(new Item(1, 1), new Item(1, 3));
    assertThat(split.rest()).containsExactly(new Item(3, 0), new Item(2, 2), new Item(1, 4));
  }
}
