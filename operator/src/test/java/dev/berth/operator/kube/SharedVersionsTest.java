package dev.berth.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.reconciler.WorkloadReconciler;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.javaoperatorsdk.operator.api.config.BaseConfigurationService;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SharedVersionsTest {
  private final String uid = UUID.randomUUID().toString();
  private final SharedVersions versions = new SharedVersions();

  private Workload version(String resourceVersion) {
    Workload wl = new Workload();
    wl.setMetadata(
        new ObjectMetaBuilder()
            .withName("train")
            .withNamespace("team")
            .withUid(uid)
            .withResourceVersion(resourceVersion)
            .withManagedFields(new ManagedFieldsEntry())
            .build());
    return wl;
  }

  @Test
  void twoInformersStoringTheSameVersionKeepOneInstance() {
    SharedLeanItemStore<Workload> workloads = new SharedLeanItemStore<>(versions);
    SharedLeanItemStore<Workload> owned = new SharedLeanItemStore<>(versions);
    Workload fromOneWatch = version("10");
    Workload fromTheOther = version("10");

    workloads.put("team/train", fromOneWatch);
    owned.put("team/train", fromTheOther);

    assertThat(owned.get("team/train"))
        .isSameAs(workloads.get("team/train"))
        .isSameAs(fromOneWatch);
    assertThat(owned.get("team/train").getMetadata().getManagedFields()).isNull();
    // A reconcile's copy of that version becomes the same instance too.
    assertThat(versions.intern(version("10"))).isSameAs(fromOneWatch);
  }

  /** JOSDK builds the Workload reconciler's informer with the operator's shared store. */
  @Test
  void thePrimaryOverrideReachesTheReconcilersInformer() {
    var josdk = new BaseConfigurationService();
    var override =
        ControllerConfigurationOverrider.override(
            josdk.getConfigurationFor(new WorkloadReconciler(null, null, null)));
    SharedLeanItemStore.<Workload>primary(versions).accept(override);

    assertThat(override.build().getInformerConfig().getItemStore())
        .isInstanceOf(SharedLeanItemStore.class);
  }

  @Test
  void aNewerVersionIsItsOwnInstanceAndALateOlderOneDoesNotTakeItsPlace() {
    Workload v10 = versions.intern(version("10"));
    Workload v11 = version("11");
    assertThat(versions.intern(v11)).isSameAs(v11).isNotSameAs(v10);

    Workload lateV10 = version("10");
    assertThat(versions.intern(lateV10)).isSameAs(lateV10);
    assertThat(versions.intern(version("11"))).isSameAs(v11);
  }

  @Test
  void anObjectOfAnotherKindOrWithoutUidOrVersionIsNeverSwapped() {
    versions.intern(version("10"));
    Job job = new Job();
    job.setMetadata(new ObjectMetaBuilder().withUid(uid).withResourceVersion("10").build());
    assertThat(versions.intern(job)).isSameAs(job);

    Workload unsaved = version(null);
    assertThat(versions.intern(unsaved)).isSameAs(unsaved);
  }
}
