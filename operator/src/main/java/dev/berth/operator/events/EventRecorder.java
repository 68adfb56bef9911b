package dev.berth.operator.events;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Kubernetes Events that explain a decision to whoever runs {@code kubectl describe}. */
public final class EventRecorder {
  private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);
  static final String COMPONENT = "berth-operator";

  /** An Event to create: {@code name} is unique, {@code time} both its first and last time. */
  public record Pending(
      String namespace,
      String name,
      HasMetadata object,
      String type,
      String reason,
      String message,
      String time) {}

  /** Where Events are created: the API server ({@link EventPoster}), or a test's stand-in. */
  public interface Sink {
    /** Creates one Event, or throws {@link KubernetesClientException}. */
    void create(Pending event);
  }

  /**
   * Writers of Events, each one at a time: one thread wrote 25-50 a second on a busy API server,
   * while the 15,000-workload baseline admits 60 a second, so Events queued up (8,000-11,000 still
   * waiting at the end of each run, dropped at stop). Four keep up; an object's Events all go
   * through the same writer, so they are written in the order they were recorded.
   */
  static final int WRITERS = 4;

  private final Sink sink;

  /**
   * Events recorded and not yet written (or given up on): what a stop would drop, and what the load
   * benchmark waits for before it bills the operator's CPU ({@code berth_events_pending}).
   */
  private final AtomicInteger pending = new AtomicInteger();

  // Events are written off the caller's thread: the admission loop must not wait on them.
  private final java.util.concurrent.ExecutorService[] writers =
      new java.util.concurrent.ExecutorService[WRITERS];

  public EventRecorder(KubernetesClient client) {
    this(new EventPoster(client));
  }

  /** Events go to {@code sink}: for tests, that stand in for the API server. */
  public EventRecorder(Sink sink) {
    this.sink = sink;
    for (int i = 0; i < WRITERS; i++) {
      String name = "berth-events-" + i;
      writers[i] =
          java.util.concurrent.Executors.newSingleThreadExecutor(
              r -> {
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                return t;
              });
    }
  }

  public void normal(HasMetadata object, String reason, String message) {
    record(object, "Normal", reason, message);
  }

  public void warning(HasMetadata object, String reason, String message) {
    record(object, "Warning", reason, message);
  }

  private void record(HasMetadata object, String type, String reason, String message) {
    String key =
        object.getMetadata().getUid() != null
            ? object.getMetadata().getUid()
            : object.getMetadata().getNamespace() + "/" + object.getMetadata().getName();
    pending.incrementAndGet();
    try {
      writers[Math.floorMod(key.hashCode(), WRITERS)].execute(
          () -> {
            try {
              write(object, type, reason, message);
            } finally {
              pending.decrementAndGet();
            }
          });
    } catch (RejectedExecutionException stopped) {
      pending.decrementAndGet();
      log.debug("event {} for {} not recorded: stopping", reason, object.getMetadata().getName());
    }
  }

  /** Events recorded and not yet written or given up on. */
  public int pending() {
    return pending.get();
  }

  /**
   * Writes the Events still waiting, for up to {@code deadline}, then drops the rest (logged with
   * their count). Called at stop after the admission loop's drain, before the client closes: an
   * admission written by this replica has its Event here or nowhere, because the next leader
   * records Events only for what it decides itself. It does not look for admissions without one:
   * knowing would take a LIST of Events at every start (the start-up issue 20 measures), and it
   * would race with this drain and write a second. So an Admitted Event is written exactly once per
   * admission unless the API server takes no Event for the whole deadline; Events are best effort
   * in Kubernetes too (they expire after an hour).
   */
  public void close(Duration deadline) {
    long by = System.nanoTime() + deadline.toNanos();
    for (var writer : writers) {
      writer.shutdown();
    }
    boolean done = true;
    try {
      for (var writer : writers) {
        done &= writer.awaitTermination(by - System.nanoTime(), TimeUnit.NANOSECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      done = false;
    }
    if (done) {
      return;
    }
    int dropped = 0;
    for (var writer : writers) {
      dropped += writer.shutdownNow().size();
    }
    log.warn(
        "{} Events not written at stop: the API server did not take them within {} ms",
        dropped,
        deadline.toMillis());
  }

  private void write(HasMetadata object, String type, String reason, String message) {
    String namespace =
        object.getMetadata().getNamespace() == null
            ? "default"
            : object.getMetadata().getNamespace();
    try {
      sink.create(
          new Pending(
              namespace,
              object.getMetadata().getName() + "." + UUID.randomUUID().toString().substring(0, 8),
              object,
              type,
              reason,
              message.length() > 1024 ? message.substring(0, 1024) : message,
              Instant.now().toString()));
    } catch (RuntimeException e) {
      // An event is an explanation, never a reason to fail a decision.
      log.debug(
          "event {} for {} not recorded: {}",
          reason,
          object.getMetadata().getName(),
          e.getMessage());
    }
  }
}
