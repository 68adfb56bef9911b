package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.UsageReport;
import dev.berth.api.v1beta1.UsageReportStatus;
import dev.berth.e2e.prometheus.DcgmExporterStandIn;
import dev.berth.e2e.prometheus.DcgmExporterStandIn.Gpu;
import dev.berth.e2e.prometheus.PrometheusServer;
import dev.berth.operator.BerthOperator;
import dev.berth.operator.OperatorConfig;
import dev.berth.operator.usage.UtilizationSettings;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The DCGM join against a real Prometheus server (Debian's package, started here) scraping a
 * stand-in for dcgm-exporter (no GPU is here) every second. A Job of two pods with 2 GPUs each
 * runs; while the test says so, pod a's GPUs are 80 % and 40 % busy and pod b's 100 % and 0 % (2.2
 * GPUs busy). Two decoys are exposed next to them, a pod of another Job in the same namespace and a
 * pod of the same name in another namespace, both 100 % busy: the join must count neither. The
 * GPU-seconds used in the namespace's UsageReport, the counters and /usage must be 2.2 × the time
 * the pods were exposed, within two scrape intervals at each edge (the first and last sample fall
 * up to one interval late, and a query_range step holds the last sample): ±2 × 2.2 × 1 s.
 */
class UtilizationE2EIT {
  private static final String GPU = "nvidia.com/gpu";
  private static final String NS = "util";
  private static final double BUSY = 0.8 + 0.4 + 1.0 + 0.0;

  @Test
  void gpuHoursUsedAreJoinedFromDcgmSeriesNextToTheHoursRequested() throws Exception {
    try (TestApiServer.Cluster cluster = TestApiServer.dedicated();
        DcgmExporterStandIn dcgm = new DcgmExporterStandIn("gpu-node-1");
        PrometheusServer prometheus = PrometheusServer.start(dcgm.target())) {
      KubernetesClient admin = cluster.client();
      Namespaces.ensure(admin, "berth-system");
      KubernetesClient operatorClient =
          new KubernetesClientBuilder()
              .withConfig(Config.fromKubeconfig(cluster.kubeconfig()))
              .build();
      try (BerthOperator operator =
          BerthOperator.start(
              operatorClient,
              new OperatorConfig(
                  "berth-system",
                  false,
                  "berth-leader",
                  0,
                  false,
                  0,
                  "berth-operator",
                  false,
                  false),
              UtilizationSettings.of(
                  prometheus.url().toString(),
                  UtilizationSettings.GPU_UTIL,
                  Duration.ofSeconds(3)))) {
        Scenario s = new Scenario(admin, NS);
        Namespaces.ensure(admin, NS, Map.of("berth.dev/cost-centre", "cc-vision"));
        admin.resource(ScenarioObjects.flavor("util-gpu", Map.of())).create();
        admin.resource(ScenarioObjects.clusterQueue("util-cq", "util-gpu", GPU, "8")).create();
        admin.resource(ScenarioObjects.localQueue(NS, "lq", "util-cq")).create();
        Job submitted = ScenarioObjects.job(NS, "train", "lq", 2, "1");
        var resources =
            submitted.getSpec().getTemplate().getSpec().getContainers().get(0).getResources();
        resources.setRequests(Map.of(GPU, new Quantity("2")));
        resources.setLimits(Map.of(GPU, new Quantity("2")));
        s.submit(submitted);
        s.awaitRunning("train");
        Job job = s.job("train");
        // The Job controller's pods (there is none here): owned by the Job, named after it.
        pod(admin, job, "train-a1b2c");
        pod(admin, job, "train-d3e4f");

        long exposed = System.currentTimeMillis();
        dcgm.run(NS, "train-a1b2c", List.of(new Gpu(0, 80), new Gpu(1, 40)));
        dcgm.run(NS, "train-d3e4f", List.of(new Gpu(2, 100), new Gpu(3, 0)));
        dcgm.run(NS, "train-other-x9y8z", List.of(new Gpu(4, 100), new Gpu(5, 100)));
        dcgm.run("elsewhere", "train-a1b2c", List.of(new Gpu(6, 100)));
        // The pods run until Prometheus holds ten scrapes of them.
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    prometheus
                        .query(
                            "count_over_time(DCGM_FI_DEV_GPU_UTIL{namespace=\"util\",pod=\"train-d3e4f\",gpu=\"2\"}"
                                + "[1m]) >= 10")
                        .contains("\"result\":[{"));
        long ended = System.currentTimeMillis();
        dcgm.stop(NS, "train-a1b2c");
        dcgm.stop(NS, "train-d3e4f");
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    prometheus
                        .query(
                            "DCGM_FI_DEV_GPU_UTIL{namespace=\"util\",pod=~\"train-a1b2c|train-d3e4f\"}")
                        .contains("\"result\":[]"));
        Kubelet.complete(admin, s.job("train"));

        long start = time(s, "QuotaReserved");
        long end = time(s, "Finished");
        BigDecimal requested = BigDecimal.valueOf(4 * (end - start)).movePointLeft(3);
        double expectedUsed = BUSY * (ended - exposed) / 1000.0;
        double tolerance = 2 * BUSY * PrometheusServer.scrapeInterval().toSeconds();

        UsageReportStatus.Entry entry =
            await()
                .atMost(Duration.ofSeconds(60))
                .until(() -> entry(admin), e -> e != null && e.usedResourceSeconds != null);
        assertThat(List.of(entry.localQueue, entry.clusterQueue, entry.costCentre, entry.flavor))
            .containsExactly("lq", "util-cq", "cc-vision", "util-gpu");
        assertThat(new BigDecimal(entry.resourceSeconds)).isEqualByComparingTo(requested);
        assertThat(new BigDecimal(entry.measuredResourceSeconds)).isEqualByComparingTo(requested);
        double used = Double.parseDouble(entry.usedResourceSeconds);
        System.out.printf(
            "[berth-test] DCGM join: %.3f GPU-seconds used, %.3f expected%n", used, expectedUsed);
        assertThat(used)
            .as("2.2 GPUs busy for %d ms", ended - exposed)
            .isBetween(expectedUsed - tolerance, expectedUsed + tolerance);

        double counted =
            operator
                .registry()
                .find("berth_namespace_used_resource_seconds")
                .tags(
                    "namespace",
                    NS,
                    "resource",
                    GPU,
                    "flavor",
                    "util-gpu",
                    "cost_centre",
                    "cc-vision")
                .counter()
                .count();
        assertThat(counted).isCloseTo(used, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(
                operator
                    .registry()
                    .find("berth_utilization_queries")
                    .tag("outcome", "ok")
                    .counter()
                    .count())
            .isEqualTo(1);

        String json = get(operator, "/usage?by=cost-centre&format=json");
        assertThat(json)
            .contains("\"cost-centre\":\"cc-vision\"")
            .contains("\"usedResourceSeconds\":\"" + entry.usedResourceSeconds + "\"")
            .contains("\"measuredResourceSeconds\":\"" + entry.measuredResourceSeconds + "\"");
        assertThat(operator.registry().scrape())
            .contains("berth_namespace_used_resource_seconds_total{cost_centre=\"cc-vision\"");
        assertThat(get(operator, "/usage?by=localqueue"))
            .contains("\nutil/lq,util-gpu,nvidia.com/gpu," + entry.resourceSeconds + ",");
        // The Workload's own record follows the report.
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    s.workload("train").map(w -> w.getStatus().usage).map(u -> u.runs).orElse(0)
                        == 1);
      } finally {
        operatorClient.close();
      }
    }
  }

  private static UsageReportStatus.Entry entry(KubernetesClient admin) {
    List<UsageReport> reports =
        admin.resources(UsageReport.class).inNamespace(NS).list().getItems();
    return reports.stream()
        .filter(r -> r.getStatus() != null && r.getStatus().entries != null)
        .flatMap(r -> r.getStatus().entries.stream())
        .findFirst()
        .orElse(null);
  }

  private static void pod(KubernetesClient admin, Job job, String name) {
    admin
        .pods()
        .inNamespace(NS)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(NS)
                .addToLabels("batch.kubernetes.io/job-name", job.getMetadata().getName())
                .withOwnerReferences(
                    new OwnerReferenceBuilder()
                        .withApiVersion("batch/v1")
                        .withKind("Job")
                        .withName(job.getMetadata().getName())
                        .withUid(job.getMetadata().getUid())
                        .withController(true)
                        .build())
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("trainer")
                .withImage("trainer")
                .withNewResources()
                .addToRequests(GPU, new Quantity("2"))
                .addToLimits(GPU, new Quantity("2"))
                .endResources()
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  private static long time(Scenario s, String type) {
    Condition c =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> s.condition("train", type).orElse(null),
                x -> x != null && "True".equals(x.status));
    return Instant.parse(c.lastTransitionTime).toEpochMilli();
  }

  private static String get(BerthOperator operator, String path) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + operator.metricsPort() + path))
            .build();
    return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).body();
  }
}
