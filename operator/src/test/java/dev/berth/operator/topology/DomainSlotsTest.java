package dev.berth.operator.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.PodSetAssignment;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DomainSlotsTest {
  private static PodSetAssignment.TopologyAssignment placed(Object... valuesAndCounts) {
    var a = new PodSetAssignment.TopologyAssignment();
    a.levels = List.of("rack", "kubernetes.io/hostname");
    a.domains = new java.util.ArrayList<>();
    for (int i = 0; i < valuesAndCounts.length; i += 2) {
      var d = new PodSetAssignment.TopologyAssignment.Domain();
      d.values = List.of(((String) valuesAndCounts[i]).split("/"));
      d.count = (Integer) valuesAndCounts[i + 1];
      a.domains.add(d);
    }
    return a;
  }

  @Test
  void eachDomainGetsAsManyPodsAsAssignedAndNoMore() {
    DomainSlots slots = new DomainSlots(placed("r1/n1", 2, "r1/n2", 1));
    assertThat(slots.next()).isEqualTo(Map.of("rack", "r1", "kubernetes.io/hostname", "n1"));
    assertThat(slots.next()).isEqualTo(Map.of("rack", "r1", "kubernetes.io/hostname", "n1"));
    assertThat(slots.next()).isEqualTo(Map.of("rack", "r1", "kubernetes.io/hostname", "n2"));
    assertThat(slots.next()).isNull();
  }

  @Test
  void podsAlreadyReleasedKeepTheirSlot() {
    DomainSlots slots = new DomainSlots(placed("r1/n1", 1, "r1/n2", 1));
    // A released pod's nodeSelector carries the flavor's labels too.
    slots.take(Map.of("gpu", "h100", "rack", "r1", "kubernetes.io/hostname", "n1"));
    assertThat(slots.next()).isEqualTo(Map.of("rack", "r1", "kubernetes.io/hostname", "n2"));
    assertThat(slots.next()).isNull();
  }

  @Test
  void aPodWithoutADomainTakesNoSlot() {
    DomainSlots slots = new DomainSlots(placed("r1/n1", 1));
    // Neither a selector naming no domain (the flavor's labels only) nor none at all uses n1's
    // one slot: it is still the next one handed out, and then there is no other.
    slots.take(Map.of("gpu", "h100"));
    slots.take(null);
    assertThat(slots.next()).isEqualTo(Map.of("rack", "r1", "kubernetes.io/hostname", "n1"));
    assertThat(slots.next()).isNull();
  }

  @Test
  void aSelectorNamingOnlyPartOfADomainTakesNoSlot() {
    DomainSlots slots = new DomainSlots(placed("r1/n1", 1, "r2/n3", 1));
    // The rack alone is not the domain (rack and host): the pod's place is not known.
    slots.take(Map.of("rack", "r1"));
    assertThat(slots.next()).isEqualTo(Map.of("rack", "r1", "kubernetes.io/hostname", "n1"));
    assertThat(slots.next()).isEqualTo(Map.of("rack", "r2", "kubernetes.io/hostname", "n3"));
    assertThat(slots.next()).isNull();
  }

  @Test
  void aRankGoesToTheDomainHoldingItInTheAssignmentsOrder() {
    DomainSlots slots = new DomainSlots(placed("r1/n1", 2, "r1/n2", 1, "r2/n3", 2));
    assertThat(slots.total()).isEqualTo(5);
    assertThat(slots.forRank(4)).isEqualTo(Map.of("rack", "r2", "kubernetes.io/hostname", "n3"));
    assertThat(slots.forRank(2)).isEqualTo(Map.of("rack", "r1", "kubernetes.io/hostname", "n2"));
    assertThat(slots.forRank(1)).isEqualTo(Map.of("rack", "r1", "kubernetes.io/hostname", "n1"));
    // n2 holds one pod: a second pod claiming rank 2 (a duplicate index) finds it full.
    assertThat(slots.forRank(2)).isNull();
    assertThat(slots.next()).isEqualTo(Map.of("rack", "r1", "kubernetes.io/hostname", "n1"));
    assertThat(slots.next()).isEqualTo(Map.of("rack", "r2", "kubernetes.io/hostname", "n3"));
    assertThat(slots.next()).isNull();
  }
}
