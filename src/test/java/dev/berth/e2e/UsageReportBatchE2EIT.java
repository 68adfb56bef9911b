package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.api.v1beta1.UsageReport;
import dev.berth.api.v1beta1.UsageReportStatus;
import dev.berth.operator.usage.ReportTranslator;
import dev.berth.operator.usage.ReportWriter;
import dev.berth.operator.usage.UsageRecorder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.http.Interceptor.RequestTags;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The monthly UsageReport written in batches, on the real API server: the runs of one batch reach
 * the report in one write, a batch offered again is counted nothing twice and written no more, two
 * writers adding to the same report at once lose nothing (the resourceVersion each write carries
 * turns the race into a 409, read again), a writer's next batch starts from its last write unless
 * the report changed meanwhile, and runs of two reports are never mixed in one write.
 */
class UsageReportBatchE2EIT {
  private static final long END = EndedRuns.END;
  private final KubernetesClient client = TestApiServer.client();

  @Test
  void aBatchIsOneWriteAndOfferedAgainCountsNothingTwice() throws Exception {
    String ns = "usage-batch";
    Namespaces.ensure(client, ns);
    List<String> events = new CopyOnWriteArrayList<>();
    ReportWriter writer = new ReportWriter(client, Clock.systemUTC());
    List<UsageRecorder.Measured> batch = runs(ns, "a", 5);
    try (Watch w = watchReports(ns, events)) {
      assertThat(writer.add(batch)).containsExactlyElementsOf(uids(batch));
      UsageReport report = report(ns);
      assertThat(report.getStatus().runs).isEqualTo(5);
      assertThat(report.getStatus().counted).hasSize(5);
      assertThat(report.getStatus().gpuHours).isEqualTo(ReportTranslator.hours(seconds(5)));
      String version = report.getMetadata().getResourceVersion();

      List<UsageRecorder.Measured> again = new ArrayList<>(batch);
      again.addAll(runs(ns, "b", 2));
      assertThat(writer.add(batch)).as("the same batch again").isEmpty();
      assertThat(report(ns).getMetadata().getResourceVersion())
          .as("nothing new, nothing written")
          .isEqualTo(version);
      assertThat(writer.add(again)).containsExactlyElementsOf(uids(runs(ns, "b", 2)));
      assertThat(report(ns).getStatus().runs).isEqualTo(7);

      // Events arrive in the order of the writes: once the last write's is in, all are.
      Awaitility.await("the report's events")
          .atMost(Duration.ofSeconds(10))
          .until(() -> events.size() >= 3);
      assertThat(events)
          .as("created; one status write for five runs, none for the batch again, one for two more")
          .containsExactly("ADDED", "MODIFIED", "MODIFIED");
    }
  }

  @Test
  void twoWritersAtOnceLoseNoRun() throws Exception {
    String ns = "usage-batch-race";
    Namespaces.ensure(client, ns);
    int rounds = 10;
    int perBatch = 4;
    ExecutorService pool = Executors.newFixedThreadPool(2);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<Integer>> added = new ArrayList<>();
      for (String writerName : List.of("x", "y")) {
        ReportWriter writer = new ReportWriter(client, Clock.systemUTC());
        added.add(
            pool.submit(
                () -> {
                  start.await();
                  int n = 0;
                  for (int r = 0; r < rounds; r++) {
                    n += addRetryingConflicts(writer, runs(ns, writerName + r + "-", perBatch));
                  }
                  return n;
                }));
      }
      start.countDown();
      for (Future<Integer> f : added) {
        assertThat(f.get(60, TimeUnit.SECONDS)).isEqualTo(rounds * perBatch);
      }
    } finally {
      pool.shutdownNow();
    }
    UsageReportStatus status = report(ns).getStatus();
    assertThat(status.runs).isEqualTo(2 * rounds * perBatch);
    assertThat(status.counted).hasSize(2 * rounds * perBatch);
    assertThat(status.gpuHours).isEqualTo(ReportTranslator.hours(seconds(2 * rounds * perBatch)));
  }

  @Test
  void aBatchStartsFromTheWritersLastWriteAndAReportChangedMeanwhileIsReadAgain() {
    String ns = "usage-batch-kept";
    Namespaces.ensure(client, ns);
    List<String> reads = new CopyOnWriteArrayList<>();
    try (KubernetesClient counted = countingReportReads(reads)) {
      ReportWriter writer = new ReportWriter(counted, Clock.systemUTC());
      assertThat(writer.add(runs(ns, "a", 3))).hasSize(3);
      assertThat(reads).as("the first batch reads the report (not found: created)").hasSize(1);

      assertThat(writer.add(runs(ns, "b", 2))).hasSize(2);
      assertThat(reads).as("the next starts from what the last write returned").hasSize(1);

      // Another writer (another replica, an old leader) adds to the report meanwhile: this
      // writer's copy is stale, its write meets a conflict, and it reads the report again.
      assertThat(new ReportWriter(client, Clock.systemUTC()).add(runs(ns, "c", 2))).hasSize(2);
      assertThat(writer.add(runs(ns, "d", 1))).hasSize(1);
      assertThat(reads).as("read again after the conflict").hasSize(2);
      assertThat(writer.add(runs(ns, "c", 2)))
          .as("the other writer's runs, offered again")
          .isEmpty();
    }
    UsageReportStatus status = report(ns).getStatus();
    assertThat(status.runs).isEqualTo(8);
    assertThat(status.counted).hasSize(8);
    assertThat(status.gpuHours).isEqualTo(ReportTranslator.hours(seconds(8)));
  }

  /** A client like the shared one that notes each GET of a UsageReport it sends. */
  private static KubernetesClient countingReportReads(List<String> reads) {
    return new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(TestApiServer.kubeconfigYaml()))
        .withHttpClientBuilderConsumer(
            b ->
                b.addOrReplaceInterceptor(
                    "count-report-reads",
                    new Interceptor() {
                      @Override
                      public void before(
                          BasicBuilder builder, HttpRequest request, RequestTags tags) {
                        if ("GET".equals(request.method())
                            && request.uri().getPath().contains("/usagereports/")) {
                          reads.add(request.uri().getPath());
                        }
                      }
                    }))
        .build();
  }

  @Test
  void runsOfTwoReportsAreNeverMixedInOneWrite() {
    Namespaces.ensure(client, "usage-batch-one");
    Namespaces.ensure(client, "usage-batch-two");
    List<UsageRecorder.Measured> mixed = new ArrayList<>(runs("usage-batch-one", "m", 1));
    mixed.addAll(runs("usage-batch-two", "m", 1));
    ReportWriter writer = new ReportWriter(client, Clock.systemUTC());
    assertThatThrownBy(() -> writer.add(mixed))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("usage-batch-two/m0 is not billed to usage-batch-one/");
    assertThat(client.resources(UsageReport.class).inNamespace("usage-batch-one").list().getItems())
        .as("nothing written")
        .isEmpty();
  }

  /**
   * As the recorder does: the writer retries a conflict a few times, then throws, and the recorder
   * sends the batch again later. A refused write wrote nothing, so the same batch is whole again.
   */
  private static int addRetryingConflicts(ReportWriter writer, List<UsageRecorder.Measured> runs) {
    for (int attempt = 1; ; attempt++) {
      try {
        return writer.add(runs).size();
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 20) {
          throw e;
        }
      }
    }
  }

  /** {@code n} one-GPU runs of an hour each, ended at {@link #END}. */
  private static List<UsageRecorder.Measured> runs(String ns, String prefix, int n) {
    return EndedRuns.of(ns, prefix, n);
  }

  private static List<String> uids(List<UsageRecorder.Measured> runs) {
    return runs.stream().map(m -> m.run().uid()).toList();
  }

  private static java.math.BigDecimal seconds(int runs) {
    return java.math.BigDecimal.valueOf(3600L * runs);
  }

  private UsageReport report(String ns) {
    return client
        .resources(UsageReport.class)
        .inNamespace(ns)
        .withName(UsageReport.nameFor(ReportTranslator.monthOf(END)))
        .require();
  }

  private Watch watchReports(String ns, List<String> events) {
    return client
        .resources(UsageReport.class)
        .inNamespace(ns)
        .watch(
            new Watcher<>() {
              @Override
              public void eventReceived(Action action, UsageReport resource) {
                events.add(action.name());
              }

              @Override
              public void onClose(WatcherException cause) {}
            });
  }
}
