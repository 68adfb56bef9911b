package dev.berth.operator.local;

import dev.berth.api.v1beta1.Berth;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Local mode has no kubelet: this stands in for the kubelet and Job controller, marking a started
 * managed Job Complete after a while, so that queues drain and waiting Jobs get their turn.
 */
final class LocalKubelet implements AutoCloseable {
  private final KubernetesClient client;
  private final long runSeconds;
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "berth-local-kubelet");
    t.setDaemon(true);
    return t;
  });
  private final Set<String> scheduled = ConcurrentHashMap.newKeySet();
  private final Watch watch;

  LocalKubelet(KubernetesClient client, long runSeconds) {
    this.client = client;
    this.runSeconds = runSeconds;
    this.watch =
        client.batch().v1().jobs().inAnyNamespace().withLabel(Berth.QUEUE_NAME_LABEL).watch(new Watcher<>() {
          @Override
          public void eventReceived(Action action, Job job) {
            boolean started = Boolean.FALSE.equals(job.getSpec().getSuspend());
            if (action != Action.DELETED && started && scheduled.add(job.getMetadata().getUid())) {
              timer.schedule(() -> complete(job), runSeconds, TimeUnit.SECONDS);
            }
          }

          @Override
          public void onClose(WatcherException cause) {}
        });
  }

  private void complete(Job job) {
    String now = Instant.now().toString();
    try {
      client.batch().v1().jobs().inNamespace(job.getMetadata().getNamespace()).withName(job.getMetadata().getName())
          .editStatus(j -> {
            if (Boolean.TRUE.equals(j.getSpec().getSuspend())) {
              return j;
            }
            JobStatus status = j.getStatus() == null ? new JobStatus() : j.getStatus();
            status.setStartTime(status.getStartTime() == null ? now : status.getStartTime());
            status.setCompletionTime(now);
            status.setSucceeded(j.getSpec().getParallelism() == null ? 1 : j.getSpec().getParallelism());
            status.setActive(0);
            status.setConditions(List.of(
                new JobConditionBuilder().withType("SuccessCriteriaMet").withStatus("True").withLastTransitionTime(now).withLastProbeTime(now).build(),
                new JobConditionBuilder().withType("Complete").withStatus("True").withLastTransitionTime(now).withLastProbeTime(now).build()));
            j.setStatus(status);
            return j;
          });
    } catch (KubernetesClientException e) {
      scheduled.remove(job.getMetadata().getUid());
    }
  }

  @Override
  public void close() {
    watch.close();
    timer.shutdownNow();
  }
}
