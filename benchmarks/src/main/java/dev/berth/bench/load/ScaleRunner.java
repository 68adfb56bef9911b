package dev.berth.bench.load;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.admission.StatusConditions;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Submits the scale benchmark's Jobs (one pod each, 1, 2, 4 or 8 GPUs in turn, spread over the
 * ClusterQueues' namespaces) from a few client threads, and watches, through informers, when each
 * Job's pod first runs, when each Job completes and (with Berth) when each Workload first reserves
 * quota. Times are seconds from the first submission. With {@code pods}, the same workloads are
 * bare Pods instead of Jobs (each its own Workload through the pod integration): a pod runs and
 * completes as its Job would.
 */
final class ScaleRunner implements AutoCloseable, BilledRuns {
  private static final int[] GPUS = {1, 2, 4, 8};
  private static final int SUBMITTERS = 8;

  private final KubernetesClient client;
  private final int jobs;
  private final int queues;
  private final boolean berth;
  private final boolean pods;
  private final Map<String, Long> running = new ConcurrentHashMap<>();
  private final Map<String, Long> complete = new ConcurrentHashMap<>();
  private final Map<String, Long> admitted = new ConcurrentHashMap<>();
  private final Set<String> usageRecorded = ConcurrentHashMap.newKeySet();
  private final CountDownLatch allComplete;
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
  private final AtomicInteger failedCreates = new AtomicInteger();
  private final AtomicInteger created = new AtomicInteger();
  private volatile long start;
  private volatile long submitted;

  ScaleRunner(KubernetesClient client, int jobs, int queues, boolean berth, boolean pods) {
    this.client = client;
    this.jobs = jobs;
    this.queues = queues;
    this.berth = berth;
    this.pods = pods;
    this.allComplete = new CountDownLatch(jobs);
  }

  static String queue(int q) {
    return String.format(Locale.ROOT, "team-%02d", q);
  }

  /** Starts the informers before the first submission, so that no event is missed. */
  void watch() {
    informers.add(
        client
            .pods()
            .inAnyNamespace()
            .inform(
                new Handler<>(
                    pod -> {
                      String phase = pod.getStatus().getPhase();
                      if (pods && "Succeeded".equals(phase)) {
                        String key =
                            pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
                        if (complete.putIfAbsent(key, System.nanoTime()) == null) {
                          allComplete.countDown();
                        }
                      }
                      if ("Running".equals(phase) || "Succeeded".equals(phase)) {
                        String job =
                            pods
                                ? pod.getMetadata().getName()
                                : pod.getMetadata().getLabels() == null
                                    ? null
                                    : pod.getMetadata()
                                        .getLabels()
                                        .get("batch.kubernetes.io/job-name");
                        if (job != null) {
                          running.putIfAbsent(
                              pod.getMetadata().getNamespace() + "/" + job, System.nanoTime());
                        }
                      }
                    })));
    informers.add(
        client
            .batch()
            .v1()
            .jobs()
            .inAnyNamespace()
            .inform(
                new Handler<>(
                    job -> {
                      if (job.getStatus() != null
                          && job.getStatus().getConditions() != null
                          && job.getStatus().getConditions().stream()
                              .anyMatch(
                                  c ->
                                      "Complete".equals(c.getType())
                                          && "True".equals(c.getStatus()))) {
                        String key =
                            job.getMetadata().getNamespace() + "/" + job.getMetadata().getName();
                        if (complete.putIfAbsent(key, System.nanoTime()) == null) {
                          allComplete.countDown();
                        }
                      }
                    })));
    if (berth) {
      informers.add(
          client
              .resources(Workload.class)
              .inAnyNamespace()
              .inform(
                  new Handler<>(
                      wl -> {
                        if (StatusConditions.hasQuotaReserved(wl)) {
                          admitted.putIfAbsent(wl.getMetadata().getUid(), System.nanoTime());
                        }
                        if (wl.getStatus() != null && wl.getStatus().usage != null) {
                          usageRecorded.add(wl.getMetadata().getUid());
                        }
                      })));
    }
  }

  /** Creates every Job, as fast as {@value #SUBMITTERS} client threads can. */
  void submit() throws Exception {
    start = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(SUBMITTERS);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < SUBMITTERS; t++) {
        int first = t;
        done.add(
            pool.submit(
                () -> {
                  for (int i = first; i < jobs; i += SUBMITTERS) {
                    try {
                      if (pods) {
                        client.resource(pod(i)).create();
                      } else {
                        client.resource(job(i)).create();
                      }
                      created.incrementAndGet();
                    } catch (RuntimeException e) {
                      if (failedCreates.incrementAndGet() <= 5) {
                        System.err.println("[scale] create job-" + i + ": " + e);
                      }
                    }
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    submitted = System.nanoTime();
    if (failedCreates.get() > 0) {
      throw new IllegalStateException(failedCreates.get() + " Job creates failed");
    }
  }

  private Job job(int i) {
    String gpus = Integer.toString(GPUS[i % GPUS.length]);
    Map<String, Quantity> requests =
        Map.of("cpu", new Quantity("1"), KwokScaleBenchmark.GPU, new Quantity(gpus));
    Map<String, Quantity> limits = Map.of(KwokScaleBenchmark.GPU, new Quantity(gpus));
    JobBuilder b =
        new JobBuilder()
            .withNewMetadata()
            .withName(String.format(Locale.ROOT, "job-%05d", i))
            .withNamespace(queue(i % queues))
            .endMetadata();
    if (berth) {
      b.editMetadata().addToLabels(Berth.QUEUE_NAME_LABEL, "jobs").endMetadata();
    }
    return b.withNewSpec()
        .withSuspend(berth)
        .withParallelism(1)
        .withCompletions(1)
        .withBackoffLimit(0)
        .withNewTemplate()
        .withNewSpec()
        .withRestartPolicy("Never")
        .addNewContainer()
        .withName("train")
        .withImage("trainer:1")
        .withNewResources()
        .withRequests(requests)
        .withLimits(limits)
        .endResources()
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  /** The pod of {@link #job}, bare: with Berth labelled for the LocalQueue, and gated by it. */
  private Pod pod(int i) {
    Job job = job(i);
    return new PodBuilder()
        .withNewMetadata()
        .withName(String.format(Locale.ROOT, "pod-%05d", i))
        .withNamespace(job.getMetadata().getNamespace())
        .withLabels(job.getMetadata().getLabels())
        .endMetadata()
        .withSpec(job.getSpec().getTemplate().getSpec())
        .build();
  }

  boolean awaitComplete(long timeout, TimeUnit unit) throws InterruptedException {
    return allComplete.await(timeout, unit);
  }

  double submittedSeconds() {
    return (submitted - start) / 1e9;
  }

  int created() {
    return created.get();
  }

  /** Seconds since the first submission (0 before it). */
  double elapsedSeconds() {
    return start == 0 ? 0 : (System.nanoTime() - start) / 1e9;
  }

  int running() {
    return running.size();
  }

  int complete() {
    return complete.size();
  }

  /** Jobs complete: each one run to bill. */
  @Override
  public long finished() {
    return complete.size();
  }

  @Override
  public long withUsageRecord() {
    return usageRecorded.size();
  }

  int admissions() {
    return admitted.size();
  }

  double allRunningSeconds() {
    return latest(running);
  }

  double allCompleteSeconds() {
    return latest(complete);
  }

  /** Admissions from the first to the last, per second. */
  double admissionsPerSecond() {
    long first = admitted.values().stream().mapToLong(Long::longValue).min().orElse(0);
    long last = admitted.values().stream().mapToLong(Long::longValue).max().orElse(0);
    return last > first ? (admitted.size() - 1) / ((last - first) / 1e9) : 0;
  }

  private double latest(Map<String, Long> times) {
    return (times.values().stream().mapToLong(Long::longValue).max().orElse(start) - start) / 1e9;
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::close);
  }

  /** Calls {@code seen} on every add and update. */
  private record Handler<T>(java.util.function.Consumer<T> seen)
      implements ResourceEventHandler<T> {
    @Override
    public void onAdd(T obj) {
      seen.accept(obj);
    }

    @Override
    public void onUpdate(T oldObj, T newObj) {
      seen.accept(newObj);
    }

    @Override
    public void onDelete(T obj, boolean deletedFinalStateUnknown) {}
  }
}
