package dev.berth.e2e;

import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The runs of each Job's Workload as the test itself sees them, independently of the times the
 * operator writes: a watch on the namespace's Workloads, and the test's own clock when each version
 * arrives. A run starts with the first version holding quota (QuotaReserved True) and ends with the
 * first that does not (released, preempted or finished). Each boundary is seen a little after the
 * operator wrote it (the watch's delivery, milliseconds on an idle machine), so a run's observed
 * length differs from the written one by at most the larger of two such delays.
 */
final class ObservedRuns implements AutoCloseable {
  /** One run: the test's clock (epoch ms) at its start and end; end 0 while it runs. */
  record Run(long start, long end) {
    long millis() {
      return end - start;
    }
  }

  private final Map<String, List<Run>> runs = new HashMap<>();
  private final Map<String, Long> running = new HashMap<>();
  private final Watch watch;

  ObservedRuns(KubernetesClient client, String namespace) {
    watch =
        client
            .resources(Workload.class)
            .inNamespace(namespace)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, Workload wl) {
                    observe(wl, System.currentTimeMillis());
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                });
  }

  private synchronized void observe(Workload wl, long now) {
    var owners = wl.getMetadata().getOwnerReferences();
    if (owners == null || owners.isEmpty()) {
      return;
    }
    String job = owners.get(0).getName();
    boolean holds =
        wl.getMetadata().getDeletionTimestamp() == null
            && wl.getStatus() != null
            && wl.getStatus().conditions != null
            && wl.getStatus().conditions.stream()
                .anyMatch(c -> "QuotaReserved".equals(c.type) && c.isTrue())
            && wl.getStatus().conditions.stream()
                .noneMatch(c -> "Finished".equals(c.type) && c.isTrue());
    Long since = running.get(job);
    if (holds && since == null) {
      running.put(job, now);
    } else if (!holds && since != null) {
      running.remove(job);
      runs.computeIfAbsent(job, k -> new ArrayList<>()).add(new Run(since, now));
    }
  }

  /** The finished runs of a Job, oldest first. */
  synchronized List<Run> of(String job) {
    return List.copyOf(runs.getOrDefault(job, List.of()));
  }

  @Override
  public void close() {
    watch.close();
  }
}
