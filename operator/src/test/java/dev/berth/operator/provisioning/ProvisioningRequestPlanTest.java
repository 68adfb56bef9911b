package dev.berth.operator.provisioning;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Admission;
import dev.berth.api.v1beta1.PodSet;
import dev.berth.api.v1beta1.PodSetAssignment;
import dev.berth.api.v1beta1.ProvisioningRequestConfigSpec;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadSpec;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.api.v1beta1.WorkloadStatus.AdmissionCheckState;
import dev.berth.api.v1beta1.WorkloadStatus.PodSetUpdate;
import dev.berth.operator.integration.Integration;
import dev.berth.operator.integration.PodTemplates;
import dev.berth.operator.integration.job.JobAdapter;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the provisioning check asks the autoscaler for, named so that a retry finds it. */
class ProvisioningRequestPlanTest {
  private static final Toleration SPOT =
      new Toleration("NoSchedule", "lifecycle", "Equal", null, "spot");
  private static final Integration.FlavorLookup FLAVORS =
      new Integration.FlavorLookup() {
        @Override
        public Map<String, String> nodeLabels(String flavor) {
          return Map.of("gpu.product", "H100", "lifecycle", flavor);
        }

        @Override
        public List<Toleration> tolerations(String flavor) {
          return "spot".equals(flavor) ? List.of(SPOT) : List.of();
        }
      };

  private static PodTemplateSpec pod(String resource, String amount) {
    return new PodTemplateSpecBuilder()
        .withNewSpec()
        .addNewContainer()
        .withName("main")
        .withNewResources()
        .addToRequests(resource, new Quantity(amount))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  /** A gang of 4 GPU pods (partially admitted to 3 would show as count 3) and a CPU launcher. */
  private static Workload workload(int admittedWorkers) {
    Workload wl = new Workload();
    wl.getMetadata().setName("job-pretrain");
    wl.getMetadata().setNamespace("team-llm");
    wl.getMetadata().setUid("uid-1");
    wl.setSpec(new WorkloadSpec());
    wl.getSpec().podSets =
        List.of(
            new PodSet("workers", 4, pod("nvidia.com/gpu", "8")),
            new PodSet("launcher", 1, pod("cpu", "2")));
    wl.setStatus(new WorkloadStatus());
    wl.getStatus().admission = new Admission();
    wl.getStatus().admission.clusterQueue = "llm";
    PodSetAssignment workers = new PodSetAssignment();
    workers.name = "workers";
    workers.flavors = Map.of("nvidia.com/gpu", "spot");
    workers.count = admittedWorkers;
    PodSetAssignment launcher = new PodSetAssignment();
    launcher.name = "launcher";
    launcher.flavors = Map.of("cpu", "on-demand");
    wl.getStatus().admission.podSetAssignments = List.of(workers, launcher);
    return wl;
  }

  private static ProvisioningRequestConfigSpec config(List<String> managed) {
    ProvisioningRequestConfigSpec spec =
        new ProvisioningRequestConfigSpec("best-effort-atomic-scale-up.autoscaling.x-k8s.io");
    spec.managedResources = managed;
    spec.parameters = Map.of("ValidUntilSeconds", "600");
    return spec;
  }

  @Test
  void onlyPodSetsRequestingAManagedResourceAreProvisionedOnTheirFlavorsNodes() {
    var plan =
        ProvisioningRequestPlan.of(
            workload(4), "spot-capacity", 1, config(List.of("nvidia.com/gpu")), FLAVORS);

    ProvisioningRequest pr = plan.request();
    assertThat(pr.getMetadata().getName()).isEqualTo("job-pretrain-spot-capacity-1");
    assertThat(pr.getMetadata().getNamespace()).isEqualTo("team-llm");
    assertThat(pr.getSpec().provisioningClassName)
        .isEqualTo("best-effort-atomic-scale-up.autoscaling.x-k8s.io");
    assertThat(pr.getSpec().parameters).containsEntry("ValidUntilSeconds", "600");
    assertThat(pr.getSpec().podSets)
        .singleElement()
        .satisfies(
            ps -> {
              assertThat(ps.count).isEqualTo(4);
              assertThat(ps.podTemplateRef.name)
                  .isEqualTo("ppt-job-pretrain-spot-capacity-1-workers");
            });
    assertThat(plan.podSets()).containsExactly("workers");
    assertThat(plan.templates())
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.getTemplate().getSpec().getNodeSelector())
                  .containsEntry("lifecycle", "spot")
                  .containsEntry("gpu.product", "H100");
              assertThat(t.getTemplate().getSpec().getTolerations()).containsExactly(SPOT);
            });
    for (var object : List.of(pr, plan.templates().get(0))) {
      assertThat(object.getMetadata().getOwnerReferences())
          .singleElement()
          .satisfies(
              o -> {
                assertThat(o.getKind()).isEqualTo("Workload");
                assertThat(o.getUid()).isEqualTo("uid-1");
                assertThat(o.getController()).isTrue();
              });
      assertThat(object.getMetadata().getAnnotations())
          .containsEntry(ProvisioningRequestPlan.CHECK_ANNOTATION, "spot-capacity");
    }
  }

  @Test
  void theAdmittedCountIsRequestedAndNoManagedResourcesMeansEveryPodSet() {
    var plan = ProvisioningRequestPlan.of(workload(3), "c", 2, config(null), FLAVORS);
    assertThat(plan.request().getSpec().podSets).extracting(ps -> ps.count).containsExactly(3, 1);
    assertThat(plan.request().getMetadata().getName()).isEqualTo("job-pretrain-c-2");
  }

  @Test
  void aWorkloadRequestingNoManagedResourceNeedsNoRequest() {
    assertThat(
            ProvisioningRequestPlan.of(
                workload(4), "c", 1, config(List.of("example.com/fpga")), FLAVORS))
        .isNull();
  }

  @Test
  void namesAreDeterministicPerAttemptAndFitTheLimit() {
    assertThat(ProvisioningRequestNames.request("wl", "c", 1))
        .isEqualTo(ProvisioningRequestNames.request("wl", "c", 1))
        .isNotEqualTo(ProvisioningRequestNames.request("wl", "c", 2));
    String longName = "w".repeat(250);
    String first = ProvisioningRequestNames.request(longName, "check", 1);
    String second = ProvisioningRequestNames.request(longName, "check", 2);
    assertThat(first).hasSizeLessThanOrEqualTo(253).endsWith("-1");
    assertThat(second).hasSizeLessThanOrEqualTo(253).endsWith("-2");
    assertThat(first.substring(0, first.length() - 2))
        .isNotEqualTo(second.substring(0, second.length() - 2));
    assertThat(ProvisioningRequestNames.podTemplate(first, "workers"))
        .hasSizeLessThanOrEqualTo(253)
        .startsWith("ppt-");
    assertThat(ProvisioningRequestNames.podTemplate(longName, "a"))
        .isNotEqualTo(ProvisioningRequestNames.podTemplate(longName, "b"));
  }

  @Test
  void theStartedPodsConsumeTheRequestAndEvictionRestoresTheUsersAnnotations() {
    Workload wl = workload(4);
    AdmissionCheckState state = new AdmissionCheckState("spot-capacity", "Ready", "", null);
    state.podSetUpdates =
        List.of(
            new PodSetUpdate(
                "workers",
                Map.of(
                    ProvisioningRequest.CONSUME_ANNOTATION, "job-pretrain-spot-capacity-1",
                    ProvisioningRequest.CLASS_ANNOTATION, "check-capacity.autoscaling.x-k8s.io")));
    wl.getStatus().admissionChecks = List.of(state);
    PodTemplateSpec original = pod("nvidia.com/gpu", "8");
    original.setMetadata(new ObjectMeta());
    original.getMetadata().setAnnotations(Map.of("kwok.berth.dev/run-for", "3s"));
    PodTemplateSpec started = Serialization.clone(original);

    PodTemplates.applyCheckUpdates(started, wl, "workers");
    assertThat(started.getMetadata().getAnnotations())
        .containsEntry(ProvisioningRequest.CONSUME_ANNOTATION, "job-pretrain-spot-capacity-1")
        .containsEntry(ProvisioningRequest.CLASS_ANNOTATION, "check-capacity.autoscaling.x-k8s.io")
        .containsEntry("kwok.berth.dev/run-for", "3s");
    PodTemplateSpec launcher = Serialization.clone(original);
    PodTemplates.applyCheckUpdates(launcher, wl, JobAdapter.PODSET);
    assertThat(launcher.getMetadata().getAnnotations()).hasSize(1);

    PodTemplates.restore(started, original);
    assertThat(started.getMetadata().getAnnotations()).containsOnlyKeys("kwok.berth.dev/run-for");
  }
}
