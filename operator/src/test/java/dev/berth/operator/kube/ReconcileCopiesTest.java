package dev.berth.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

class ReconcileCopiesTest {
  private final ReconcileCopies copies = new ReconcileCopies(new KubernetesSerialization());

  @Test
  void aWorkloadIsHandedAsCached() {
    Workload wl = new Workload();
    wl.setMetadata(new ObjectMetaBuilder().withName("w").withNamespace("ns").build());

    assertThat(copies.clone(wl)).isSameAs(wl);
  }

  @Test
  void everyOtherKindIsCopied() {
    ClusterQueue cq = new ClusterQueue();
    cq.setMetadata(new ObjectMetaBuilder().withName("cq").build());

    ClusterQueue copy = copies.clone(cq);

    assertThat(copy).isNotSameAs(cq).isEqualTo(cq);
    copy.getMetadata().setName("changed");
    assertThat(cq.getMetadata().getName()).isEqualTo("cq");
  }
}
