package dev.berth.engine.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.engine.model.LabelSelectorRequirement.Operator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The one label matcher: on a node's labels every key counts; on a flavor's pinned labels only keys
 * the flavor sets can contradict.
 */
class NodeLabelMatcherTest {
  private static final Map<String, String> LABELS = Map.of("zone", "a", "tier", "spot");

  private static PodSet podSet(Map<String, String> nodeSelector, List<NodeSelectorTerm> terms) {
    return new PodSet("main", 1, null, Map.of(), nodeSelector, terms, null, null);
  }

  private static NodeSelectorTerm term(String key, Operator op, String... values) {
    return new NodeSelectorTerm(List.of(new LabelSelectorRequirement(key, op, List.of(values))));
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of("nothing asked", podSet(Map.of(), List.of()), true, true),
        Arguments.of("selector met", podSet(Map.of("zone", "a"), List.of()), true, true),
        Arguments.of("selector contradicted", podSet(Map.of("zone", "b"), List.of()), false, false),
        Arguments.of(
            "selector key absent: only a pinned set may still match",
            podSet(Map.of("rack", "r1"), List.of()),
            false,
            true),
        Arguments.of(
            "one term of two holds",
            podSet(
                Map.of(), List.of(term("zone", Operator.In, "b"), term("tier", Operator.Exists))),
            true,
            true),
        Arguments.of(
            "no term holds",
            podSet(Map.of(), List.of(term("zone", Operator.NotIn, "a"))),
            false,
            false),
        Arguments.of(
            "term on an absent key: only a pinned set may still match",
            podSet(Map.of(), List.of(term("gpu", Operator.Gt, "4"))),
            false,
            true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void nodeAndPinnedLabels(String name, PodSet ps, boolean onNode, boolean onPinned) {
    assertThat(NodeLabelMatcher.selects(ps, LABELS)).isEqualTo(onNode);
    boolean pinned =
        NodeLabelMatcher.contradictedKey(ps.nodeSelector(), LABELS, true) == null
            && (ps.requiredNodeAffinity().isEmpty()
                || NodeLabelMatcher.anyTermMatches(ps.requiredNodeAffinity(), LABELS, true));
    assertThat(pinned).isEqualTo(onPinned);
  }

  @ParameterizedTest(name = "carriesAll {0}")
  @MethodSource("carried")
  void carriesAll(Map<String, String> wanted, boolean expected) {
    assertThat(NodeLabelMatcher.carriesAll(LABELS, wanted)).isEqualTo(expected);
  }

  static Stream<Arguments> carried() {
    return Stream.of(
        Arguments.of(Map.of(), true),
        Arguments.of(Map.of("zone", "a", "tier", "spot"), true),
        Arguments.of(Map.of("zone", "b"), false),
        Arguments.of(Map.of("rack", "r1"), false));
  }
}
