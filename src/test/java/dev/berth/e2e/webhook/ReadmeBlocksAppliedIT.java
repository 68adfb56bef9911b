package dev.berth.e2e.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.e2e.ReadmeBlocks;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every ```yaml block of README.md is accepted as written by a real API server with Berth's CRDs
 * and webhooks, applied server-side by a user (not the operator), in the README's order, after what
 * the blocks name but do not define: the WorkloadPriorityClasses of samples/ (the Job's {@code
 * berth.dev/priority-class: production}). A fragment of the README's Job is applied inside that
 * Job, under a name of its own. A refused block fails the test with its README line and the
 * server's answer.
 *
 * <p>The rest of samples/ is not applied first: the README's flavor, ClusterQueue, Namespace and
 * LocalQueue are smaller versions of the samples' objects of the same names, not additions to them.
 */
class ReadmeBlocksAppliedIT {
  /** One field manager for samples and README, as one person running kubectl apply would. */
  private static final String MANAGER = "readme-reader";

  /** The webhook reads LocalQueues and ClusterQueues from informers: they see a new one late. */
  private static final Duration INFORMER_LAG = Duration.ofSeconds(20);

  private final WebhookTestCluster cluster = WebhookTestCluster.get();
  private final KubernetesClient user = cluster.user();
  private final List<HasMetadata> applied = new ArrayList<>();

  @Test
  void everyReadmeBlockIsAcceptedAsWritten() throws Exception {
    try {
      for (Path sample : samples()) {
        try (InputStream in = Files.newInputStream(sample)) {
          for (HasMetadata object : user.load(in).items()) {
            if (object.getKind().equals("WorkloadPriorityClass")) {
              String refused = apply(object);
              assertThat(refused).as("%s, %s", sample.getFileName(), id(object)).isNull();
            }
          }
        }
      }

      List<ReadmeBlocks.Block> blocks = ReadmeBlocks.all();
      assertThat(blocks).as("yaml blocks in the README").hasSizeGreaterThanOrEqualTo(6);
      List<String> refusals = new ArrayList<>();
      Job readmeJob = null;
      for (ReadmeBlocks.Block block : blocks) {
        if (block.isFragment()) {
          continue;
        }
        List<HasMetadata> objects =
            user.load(
                    new java.io.ByteArrayInputStream(
                        block.yaml().getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .items();
        assertThat(objects).as(block.toString()).isNotEmpty();
        for (HasMetadata object : objects) {
          String refused = apply(object);
          if (refused != null) {
            refusals.add(block + " (" + id(object) + "): " + refused);
          }
          if (object instanceof Job job) {
            readmeJob = job;
          }
        }
      }
      assertThat(readmeJob).as("the README shows a Job").isNotNull();
      for (ReadmeBlocks.Block block : blocks) {
        if (block.isFragment()) {
          Job withFragment =
              ReadmeBlocks.withFragment(
                  readmeJob, block.yaml(), readmeJob.getMetadata().getName() + "-" + block.line());
          String refused = apply(withFragment);
          if (refused != null) {
            refusals.add(block + " (in the README's Job): " + refused);
          }
        }
      }
      assertThat(refusals).as("README blocks the API server refused").isEmpty();
    } finally {
      Collections.reverse(applied);
      for (HasMetadata object : applied) {
        cluster.admin().resource(object).delete();
      }
    }
  }

  /**
   * Applies the object server-side; returns null once the server accepts it, or its last answer if
   * it refuses it for longer than the webhook's informers can lag.
   */
  private String apply(HasMetadata object) {
    AtomicReference<String> refusal = new AtomicReference<>();
    java.util.concurrent.Callable<Boolean> accepted =
        () -> {
          try {
            user.resource(object).fieldManager(MANAGER).serverSideApply();
            return true;
          } catch (KubernetesClientException e) {
            refusal.set(e.getCode() + " " + message(e));
            return false;
          }
        };
    try {
      await().atMost(INFORMER_LAG).pollInterval(Duration.ofMillis(500)).until(accepted);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      return refusal.get();
    }
    applied.add(object);
    return null;
  }

  private static String message(KubernetesClientException e) {
    return e.getStatus() != null && e.getStatus().getMessage() != null
        ? e.getStatus().getMessage()
        : e.getMessage();
  }

  private static String id(HasMetadata o) {
    String ns = o.getMetadata().getNamespace();
    return o.getKind() + " " + (ns == null ? "" : ns + "/") + o.getMetadata().getName();
  }

  private static List<Path> samples() throws IOException {
    try (Stream<Path> files = Files.list(Path.of(System.getProperty("berth.repo"), "samples"))) {
      return files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
  }
}
