package dev.berth.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.engine.Admission;
import dev.berth.engine.PodSetAssignment;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** How an admission write of unknown outcome is decided from the Workload read back. */
class AdmissionReadBackTest {

  private static final Admission OURS =
      new Admission(
          "uid",
          "team",
          "w",
          "cq",
          "lq",
          List.of(
              new PodSetAssignment(
                  "main", Map.of("cpu", "default"), Map.of("cpu", 1000L), 1, Map.of())),
          1);

  record Case(String name, Workload read, AdmissionReadBack expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Workload version(String rv) {
    Workload wl = new Workload();
    wl.getMetadata().setName("w");
    wl.getMetadata().setUid("uid");
    wl.getMetadata().setResourceVersion(rv);
    wl.setStatus(new WorkloadStatus());
    wl.getStatus().conditions = new ArrayList<>();
    return wl;
  }

  private static Workload admitted(String rv, String clusterQueue, String flavor) {
    Workload wl = version(rv);
    wl.getStatus().admission = new dev.berth.api.v1beta1.Admission();
    wl.getStatus().admission.clusterQueue = clusterQueue;
    var ps = new dev.berth.api.v1beta1.PodSetAssignment();
    ps.name = "main";
    ps.flavors = Map.of("cpu", flavor);
    wl.getStatus().admission.podSetAssignments = List.of(ps);
    wl.getStatus().conditions.add(new Condition("QuotaReserved", "True", "QuotaReserved", "ok"));
    return wl;
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "the write was applied: a newer version carries our admission",
            admitted("11", "cq", "default"),
            AdmissionReadBack.WRITTEN),
        new Case(
            "the write was not applied: the same version as decided on",
            version("10"),
            AdmissionReadBack.NOT_WRITTEN),
        new Case(
            "changed by someone else, without an admission",
            version("12"),
            AdmissionReadBack.NOT_WRITTEN),
        new Case(
            "admitted elsewhere: another ClusterQueue",
            admitted("12", "other", "default"),
            AdmissionReadBack.NOT_WRITTEN),
        new Case(
            "admitted with other flavors",
            admitted("12", "cq", "spot"),
            AdmissionReadBack.NOT_WRITTEN),
        new Case("the Workload is gone", null, AdmissionReadBack.GONE));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void readBack(Case c) {
    assertThat(AdmissionReadBack.of(OURS, version("10"), c.read())).isEqualTo(c.expected());
  }

  @ParameterizedTest(name = "HTTP {0}: outcome unknown {1}")
  @MethodSource("codes")
  void whichFailuresLeaveTheOutcomeUnknown(int code, boolean unknown) {
    assertThat(DecisionWriter.outcomeUnknown(new KubernetesClientException("x", code, null)))
        .isEqualTo(unknown);
  }

  static Stream<org.junit.jupiter.params.provider.Arguments> codes() {
    return Stream.of(
        org.junit.jupiter.params.provider.Arguments.of(0, true),
        org.junit.jupiter.params.provider.Arguments.of(500, true),
        org.junit.jupiter.params.provider.Arguments.of(504, true),
        org.junit.jupiter.params.provider.Arguments.of(409, false),
        org.junit.jupiter.params.provider.Arguments.of(429, false),
        org.junit.jupiter.params.provider.Arguments.of(422, false));
  }
}
