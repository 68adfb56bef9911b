package dev.berth.bench.load;

import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.bench.load.SchedulerLoad.WorkloadClass;
import dev.berth.operator.admission.StatusConditions;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Plays the part of Kueue's scheduler-performance runner against Berth: creates the load's
 * Workloads at their classes' intervals, and for each one it sees admitted writes a Finished
 * condition {@code runtime} after it saw the admission; one it sees evicted gets its quota released
 * (admission cleared, QuotaReserved False), as a Job's controller would once its pods stopped.
 * Records when each was created, first admitted and finished, and the preemptions.
 */
final class LoadRunner implements AutoCloseable, BilledRuns {
  static final String CLASS_LABEL = "bench.berth.dev/class";
  static final String RUNTIME_LABEL = "bench.berth.dev/runtime-ms";

  /** One Workload's life as the runner saw it (System.nanoTime(), 0 for not yet). */
  static final class Life {
    final WorkloadClass workloadClass;
    volatile long created;
    volatile long firstAdmitted;
    volatile long finished;

    /** Identifies the admission being run now; null while not admitted. */
    volatile Object running;

    Life(WorkloadClass workloadClass) {
      this.workloadClass = workloadClass;
    }
  }

  private final KubernetesClient client;
  private final SchedulerLoad load;
  private final Map<String, Life> lives = new ConcurrentHashMap<>();
  private final Set<String> evictionsSeen = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService creators;
  private final ScheduledExecutorService writers;
  private final CountDownLatch allFinished;
  private final AtomicInteger finished = new AtomicInteger();
  private final AtomicInteger preemptions = new AtomicInteger();
  private final AtomicInteger evictions = new AtomicInteger();

  /** The runner's own requests, to tell them from the operator's in the API server's counts. */
  private final AtomicLong creates = new AtomicLong();

  private final AtomicLong statusWrites = new AtomicLong();
  private final List<RuntimeException> createFailures = new ArrayList<>();
  private SharedIndexInformer<Workload> informer;
  private final String prefix;
  private volatile long firstCreate;
  private volatile long lastFinish;

  LoadRunner(KubernetesClient client, SchedulerLoad load) {
    this(client, load, "");
  }

  /**
   * @param prefix of the runner's Workload names: a second runner on the same queues (a warm-up
   *     round before the measured one) creates and counts only its own
   */
  LoadRunner(KubernetesClient client, SchedulerLoad load, String prefix) {
    this.client = client;
    this.load = load;
    this.prefix = prefix;
    this.allFinished = new CountDownLatch(load.workloads());
    this.creators = Executors.newScheduledThreadPool(16, named("bench-create"));
    this.writers = Executors.newScheduledThreadPool(8, named("bench-runner"));
  }

  private static java.util.concurrent.ThreadFactory named(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** Starts watching Workloads in every namespace, before anything is created. */
  void watch() {
    informer =
        client
            .resources(Workload.class)
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Workload wl) {
                    seen(wl);
                  }

                  @Override
                  public void onUpdate(Workload old, Workload wl) {
                    seen(wl);
                  }

                  @Override
                  public void onDelete(Workload wl, boolean unknownFinalState) {}
                },
                0);
  }

  /** Starts creating: every class of every ClusterQueue at once, each at its own interval. */
  void create() {
    firstCreate = System.nanoTime();
    for (int c = 0; c < load.cohorts(); c++) {
      for (int q = 0; q < load.queuesPerCohort(); q++) {
        String queue = load.clusterQueueName(c, q);
        for (WorkloadClass wc : load.classes()) {
          scheduleNext(queue, wc, 0);
        }
      }
    }
  }

  private void scheduleNext(String queue, WorkloadClass wc, int index) {
    if (index >= wc.perQueue()) {
      return;
    }
    creators.schedule(
        () -> {
          createOne(queue, wc, index);
          scheduleNext(queue, wc, index + 1);
        },
        wc.intervalMs(),
        TimeUnit.MILLISECONDS);
  }

  private void createOne(String queue, WorkloadClass wc, int index) {
    String name = prefix + wc.name() + "-" + index;
    Life life = lives.computeIfAbsent(queue + "/" + name, k -> new Life(wc));
    life.created = System.nanoTime();
    Workload wl = workload(queue, wc, name);
    try {
      creates.incrementAndGet();
      client.resource(wl).create();
    } catch (RuntimeException e) {
      synchronized (createFailures) {
        createFailures.add(e);
      }
    }
  }

  /** One Workload of the load: a single pod asking for its class's cpu, in {@code queue}. */
  static Workload workload(String queue, WorkloadClass wc, String name) {
    Workload wl = OnePodWorkload.of(queue, name, wc.priority(), wc.cpu());
    wl.getMetadata()
        .setLabels(Map.of(CLASS_LABEL, wc.name(), RUNTIME_LABEL, Integer.toString(wc.runtimeMs())));
    return wl;
  }

  private void seen(Workload wl) {
    String key = wl.getMetadata().getNamespace() + "/" + wl.getMetadata().getName();
    Life life = lives.get(key);
    if (life == null) {
      return; // not one of the load's
    }
    if (StatusConditions.isFinished(wl)) {
      if (life.finished == 0) {
        life.finished = System.nanoTime();
        lastFinish = life.finished;
        finished.incrementAndGet();
        allFinished.countDown();
      }
      return;
    }
    WorkloadStatus status = wl.getStatus();
    boolean holdsQuota = status != null && status.admission != null;
    if (holdsQuota && StatusConditions.isTrue(wl, StatusConditions.EVICTED)) {
      life.running = null;
      var evicted =
          StatusConditions.find(status.conditions, StatusConditions.EVICTED).orElseThrow();
      if (evictionsSeen.add(key + "@" + evicted.lastTransitionTime)) {
        evictions.incrementAndGet();
        if (StatusConditions.isTrue(wl, StatusConditions.PREEMPTED)) {
          preemptions.incrementAndGet();
        }
      }
      writers.execute(() -> release(key));
      return;
    }
    if (holdsQuota && StatusConditions.isTrue(wl, StatusConditions.ADMITTED)) {
      if (life.running == null) {
        long now = System.nanoTime();
        if (life.firstAdmitted == 0) {
          life.firstAdmitted = now;
        }
        Object admission = new Object();
        life.running = admission;
        writers.schedule(
            () -> finish(key, admission), life.workloadClass.runtimeMs(), TimeUnit.MILLISECONDS);
      }
    } else {
      life.running = null;
    }
  }

  /** Writes Finished on the Workload as stored now, if the admission it ran under still holds. */
  private void finish(String key, Object admission) {
    Life life = lives.get(key);
    Workload latest = informer.getStore().getByKey(key);
    if (life.running != admission || latest == null || StatusConditions.isFinished(latest)) {
      return;
    }
    Workload copy = Serialization.clone(latest);
    setFinished(copy.getStatus(), Instant.now());
    if (!write(copy)) {
      // A newer version (or a failure): try again on what is stored then.
      writers.schedule(() -> finish(key, admission), 50, TimeUnit.MILLISECONDS);
    }
  }

  /** The runner's Finished condition, as it writes it on a Workload whose runtime is over. */
  static void setFinished(WorkloadStatus status, Instant now) {
    StatusConditions.set(
        status, StatusConditions.FINISHED, true, "ByTest", "By the benchmark's runner", now);
  }

  /** The pods of an evicted Workload are gone at once here: its quota is given back. */
  private void release(String key) {
    Workload latest = informer.getStore().getByKey(key);
    if (latest == null
        || latest.getStatus() == null
        || latest.getStatus().admission == null
        || !StatusConditions.isTrue(latest, StatusConditions.EVICTED)) {
      return;
    }
    Workload copy = Serialization.clone(latest);
    Instant now = Instant.now();
    copy.getStatus().admission = null;
    StatusConditions.set(
        copy.getStatus(),
        StatusConditions.QUOTA_RESERVED,
        false,
        "Pending",
        "Evicted by the benchmark's runner",
        now);
    StatusConditions.set(
        copy.getStatus(),
        StatusConditions.ADMITTED,
        false,
        "NoReservation",
        "The workload has no reservation",
        now);
    if (!write(copy)) {
      writers.schedule(() -> release(key), 50, TimeUnit.MILLISECONDS);
    }
  }

  private boolean write(Workload copy) {
    statusWrites.incrementAndGet();
    try {
      client.resource(copy).updateStatus();
      return true;
    } catch (KubernetesClientException e) {
      return false;
    }
  }

  boolean awaitFinished(long timeout, TimeUnit unit) throws InterruptedException {
    return allFinished.await(timeout, unit);
  }

  @Override
  public long finished() {
    return finished.get();
  }

  int preemptions() {
    return preemptions.get();
  }

  int evictions() {
    return evictions.get();
  }

  long creates() {
    return creates.get();
  }

  long statusWrites() {
    return statusWrites.get();
  }

  List<RuntimeException> createFailures() {
    synchronized (createFailures) {
      return List.copyOf(createFailures);
    }
  }

  /** From the first creation to the last Finished seen, in seconds. */
  double wallSeconds() {
    return (lastFinish - firstCreate) / 1e9;
  }

  /** The runner's own Workloads with their usage recorded (status.usage). */
  @Override
  public long withUsageRecord() {
    return informer.getStore().list().stream()
        .filter(w -> w.getMetadata().getName().startsWith(prefix))
        .filter(
            w ->
                lives.containsKey(w.getMetadata().getNamespace() + "/" + w.getMetadata().getName()))
        .filter(w -> w.getStatus() != null && w.getStatus().usage != null)
        .count();
  }

  Map<String, Life> lives() {
    return lives;
  }

  @Override
  public void close() {
    creators.shutdownNow();
    writers.shutdownNow();
    if (informer != null) {
      informer.close();
    }
  }
}
