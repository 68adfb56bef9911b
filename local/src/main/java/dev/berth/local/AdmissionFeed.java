package dev.berth.local;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.admission.TopologyTranslator;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.io.PrintStream;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Streams what happens, as it happens: each Workload's admission, wait reason or finish, and each
 * ClusterQueue's counts when they change.
 */
final class AdmissionFeed implements AutoCloseable {
  private final PrintStream out;
  private final Map<String, String> lastLine = new ConcurrentHashMap<>();
  private final List<Watch> watches;

  AdmissionFeed(KubernetesClient client, PrintStream out) {
    this.out = out;
    this.watches =
        List.of(
            client.resources(Workload.class).inAnyNamespace().watch(new Printer<>(this::describe)),
            client.resources(ClusterQueue.class).watch(new Printer<>(this::describe)));
  }

  private String describe(Workload wl) {
    String name = wl.getMetadata().getNamespace() + "/" + wl.getMetadata().getName();
    if (wl.getStatus() == null || wl.getStatus().conditions == null) {
      return String.format("%-10s %-48s queued in %s", "NEW", name, wl.getSpec().queueName);
    }
    Condition finished = find(wl, "Finished");
    if (finished != null && finished.isTrue()) {
      return String.format("%-10s %-48s %s", "FINISHED", name, finished.message);
    }
    Condition evicted = find(wl, "Evicted");
    if (evicted != null && evicted.isTrue()) {
      return String.format("%-10s %-48s %s", "EVICTED", name, evicted.message);
    }
    Condition reserved = find(wl, "QuotaReserved");
    if (reserved != null && reserved.isTrue() && wl.getStatus().admission != null) {
      StringBuilder flavors = new StringBuilder();
      wl.getStatus()
          .admission
          .podSetAssignments
          .forEach(
              ps -> {
                flavors.append(' ').append(ps.name).append('=').append(ps.flavors);
                var placed = TopologyTranslator.fromApi(ps.topologyAssignment);
                if (placed != null) {
                  flavors
                      .append(" [")
                      .append(TopologyTranslator.summary(ps.name, placed))
                      .append(']');
                }
              });
      return String.format(
          "%-10s %-48s in %s;%s", "ADMITTED", name, wl.getStatus().admission.clusterQueue, flavors);
    }
    if (reserved != null) {
      return String.format(
          "%-10s %-48s %s: %s", "PENDING", name, reserved.reason, reserved.message);
    }
    return null;
  }

  private String describe(ClusterQueue cq) {
    if (cq.getStatus() == null) {
      return null;
    }
    return String.format(
        "%-10s %-48s pending %d, admitted %d",
        "QUEUE",
        cq.getMetadata().getName(),
        cq.getStatus().pendingWorkloads == null ? 0 : cq.getStatus().pendingWorkloads,
        cq.getStatus().admittedWorkloads == null ? 0 : cq.getStatus().admittedWorkloads);
  }

  private static Condition find(Workload wl, String type) {
    return wl.getStatus().conditions.stream()
        .filter(c -> type.equals(c.type))
        .findFirst()
        .orElse(null);
  }

  private final class Printer<T extends io.fabric8.kubernetes.api.model.HasMetadata>
      implements Watcher<T> {
    private final java.util.function.Function<T, String> describe;

    Printer(java.util.function.Function<T, String> describe) {
      this.describe = describe;
    }

    @Override
    public void eventReceived(Action action, T object) {
      if (action == Action.DELETED) {
        return;
      }
      String line = describe.apply(object);
      String key =
          object.getKind()
              + "/"
              + object.getMetadata().getNamespace()
              + "/"
              + object.getMetadata().getName();
      if (line != null && !Objects.equals(lastLine.put(key, line), line)) {
        out.println(LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + "  " + line);
      }
    }

    @Override
    public void onClose(WatcherException cause) {}
  }

  @Override
  public void close() {
    watches.forEach(Watch::close);
  }
}
