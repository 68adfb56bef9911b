package dev.berth.bench.load;

import dev.berth.api.v1beta1.Workload;
import dev.berth.api.v1beta1.WorkloadStatus;
import dev.berth.bench.load.SchedulerLoad.WorkloadClass;
import dev.berth.local.EmbeddedApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * What bounds {@link SchedulerLoadBenchmark}'s wall time from below: the real API server's own
 * write rate on this machine, through the same fabric8 client the load runner uses ({@link
 * EmbeddedApiServer#client()}), with no operator running and nothing admitted. A baseline run needs
 * some number of writes (its creates, the operator's status writes, the runner's Finished writes);
 * however good the admission, it cannot finish faster than the API server takes them.
 *
 * <p>Per thread count, on fresh object names each time: (1) creates of {@code workloads} Workloads
 * of the baseline's shape ({@link LoadRunner#workload}, its classes in their 350:100:50 proportion)
 * spread over {@code namespaces} namespaces with their LocalQueues, as fast as the threads go; (2)
 * one status write per created Workload, the runner's Finished condition ({@link
 * LoadRunner#setFinished}) on the resourceVersion its create returned, so that optimistic
 * concurrency is as in the load; (3) both at once, half the threads creating and half writing the
 * status of what was just created, as the runner and the operator write together in the load.
 * Prints each phase's count, seconds and writes per second, the 1-minute load average at its start
 * and end and this JVM's CPU, the API server's request counts (apiserver_request_total) by verb and
 * resource, and the least time a run of {@code baselineWrites} writes could take at the best mixed
 * rate. A first 200 creates and status writes, not counted, warm the client and the server up.
 * Objects are not deleted: a later thread count writes into a larger store.
 *
 * <pre>
 * ./mvnw -B -o -q -Pbench -DskipTests package -pl benchmarks -am
 * java -Dworkloads=15000 -Dthreads=8,16,32 -cp benchmarks/target/benchmarks.jar \
 *     dev.berth.bench.load.ApiWriteRateBenchmark
 * </pre>
 *
 * <p>System properties: {@code workloads} (per phase and thread count; default 15000, the
 * baseline's), {@code threads} (a comma-separated list of thread counts, each run in turn; default
 * "16", the runner's creating threads), {@code namespaces} (default 30, the baseline's ClusterQueue
 * namespaces), {@code baselineWrites} (default 66531, the writes by the API server's count of a
 * measured 15,000-Workload baseline run).
 */
public final class ApiWriteRateBenchmark {
  private static final int WARMUP = 200;

  /** Put in the mixed phase's queue for a create that failed, so that a writer does not wait. */
  private static final Workload FAILED = new Workload();

  private ApiWriteRateBenchmark() {}

  /** One phase's figures; load averages are the 1-minute one, CPU is this JVM's user+sys. */
  private record Phase(
      String name,
      int writes,
      int failed,
      double seconds,
      String loadStart,
      String loadEnd,
      double cpuSeconds,
      String firstFailure) {
    double rate() {
      return writes / seconds;
    }
  }

  /** Failures of one phase: how many, the first one's message, and writes not tried for them. */
  private static final class Failures {
    final AtomicInteger count = new AtomicInteger();
    final AtomicInteger skipped = new AtomicInteger();
    volatile String first;

    void add(RuntimeException e) {
      if (count.getAndIncrement() == 0) {
        first = e.getClass().getSimpleName() + ": " + e.getMessage();
      }
    }
  }

  public static void main(String[] args) throws Exception {
    int workloads = Integer.getInteger("workloads", 15_000);
    int namespaces = Integer.getInteger("namespaces", 30);
    long baselineWrites = Long.getLong("baselineWrites", 66_531);
    int[] threadCounts =
        Arrays.stream(System.getProperty("threads", "16").split(","))
            .map(String::trim)
            .filter(s -> !s.isEmpty())
            .mapToInt(Integer::parseInt)
            .toArray();
    System.out.printf(
        Locale.ROOT,
        "[write-rate] %d Workloads per phase in %d namespaces, threads %s; no operator;"
            + " load %s; %d cpus%n",
        workloads,
        namespaces,
        Arrays.toString(threadCounts),
        LoadAverage.now(),
        Runtime.getRuntime().availableProcessors());
    List<WorkloadClass> mix = new ArrayList<>();
    for (WorkloadClass wc : SchedulerLoad.baseline(15_000).classes()) {
      for (int i = 0; i < wc.perQueue(); i++) {
        mix.add(wc);
      }
    }
    EmbeddedApiServer apiServer = EmbeddedApiServer.start();
    double bestMixed = 0;
    int bestThreads = 0;
    try {
      BerthCrdsInstalled.kubeconfig(apiServer, Files.createTempDirectory("berth-write-rate-"));
      KubernetesClient client = apiServer.client();
      List<String> queues = new ArrayList<>();
      for (int n = 0; n < namespaces; n++) {
        queues.add("cq-" + n);
        SchedulerLoadBenchmark.namespaceWithLocalQueue(client, queues.get(n));
      }
      Shape shape = new Shape(client, queues, mix);
      Workload[] warm = new Workload[WARMUP];
      parallel(8, WARMUP, i -> warm[i] = shape.create("warm", i, new Failures()));
      parallel(8, WARMUP, i -> shape.finish(warm[i], new Failures()));
      for (int threads : threadCounts) {
        ApiRequests before = ApiRequests.scrape(client);
        Workload[] created = new Workload[workloads];
        List<Phase> phases = new ArrayList<>();
        phases.add(
            measure(
                "creates",
                workloads,
                f ->
                    parallel(
                        threads, workloads, i -> created[i] = shape.create("c" + threads, i, f))));
        phases.add(
            measure(
                "status writes",
                (int) Arrays.stream(created).filter(w -> w != null).count(),
                f -> parallel(threads, workloads, i -> shape.finish(created[i], f))));
        phases.add(measure("mixed", 2 * workloads, f -> mixed(shape, threads, workloads, f)));
        Map<String, Long> requests = ApiRequests.scrape(client).since(before);
        System.out.print(report(threads, phases, requests));
        if (phases.get(2).rate() > bestMixed) {
          bestMixed = phases.get(2).rate();
          bestThreads = threads;
        }
      }
    } finally {
      apiServer.close();
    }
    System.out.printf(
        Locale.ROOT,
        "%n[write-rate] a baseline run needing %d writes (pass -DbaselineWrites=W, default 66531,"
            + " the writes of a measured 15,000-Workload run) cannot take less than %d / %.1f"
            + " = %.1f s on this machine with this client (best mixed rate %.1f writes/s, at %d"
            + " threads)%n",
        baselineWrites,
        baselineWrites,
        bestMixed,
        baselineWrites / bestMixed,
        bestMixed,
        bestThreads);
    System.exit(0);
  }

  /** The baseline's Workloads, spread over the namespaces, and the two writes made to them. */
  private record Shape(KubernetesClient client, List<String> queues, List<WorkloadClass> mix) {
    /** Creates Workload {@code i} of a round; returns it as created, or null if that failed. */
    Workload create(String round, int i, Failures failures) {
      String queue = queues.get(i % queues.size());
      WorkloadClass wc = mix.get((i / queues.size()) % mix.size());
      try {
        return client
            .resource(LoadRunner.workload(queue, wc, wc.name() + "-" + round + "-" + i))
            .create();
      } catch (RuntimeException e) {
        failures.add(e);
        return null;
      }
    }

    /** The runner's Finished write, on the resourceVersion {@code created} came back with. */
    void finish(Workload created, Failures failures) {
      if (created == null) {
        return;
      }
      if (created.getStatus() == null) {
        created.setStatus(new WorkloadStatus());
      }
      LoadRunner.setFinished(created.getStatus(), Instant.now());
      try {
        client.resource(created).updateStatus();
      } catch (RuntimeException e) {
        failures.add(e);
      }
    }
  }

  /** Half the threads create, the other half write the status of each as it is created. */
  private static void mixed(Shape shape, int threads, int workloads, Failures failures)
      throws Exception {
    int creators = Math.max(1, threads / 2);
    BlockingQueue<Workload> created = new LinkedBlockingQueue<>();
    AtomicInteger toWrite = new AtomicInteger();
    ExecutorService writers = Executors.newFixedThreadPool(Math.max(1, threads - creators));
    try {
      List<Future<?>> writing = new ArrayList<>();
      for (int t = 0; t < Math.max(1, threads - creators); t++) {
        writing.add(
            writers.submit(
                () -> {
                  while (toWrite.getAndIncrement() < workloads) {
                    Workload wl = created.take();
                    if (wl == FAILED) {
                      failures.skipped.incrementAndGet(); // its create failed
                    } else {
                      shape.finish(wl, failures);
                    }
                  }
                  return null;
                }));
      }
      parallel(
          creators,
          workloads,
          i -> {
            Workload wl = shape.create("m" + threads, i, failures);
            created.add(wl == null ? FAILED : wl);
          });
      for (Future<?> f : writing) {
        f.get();
      }
    } finally {
      writers.shutdownNow();
    }
  }

  /** {@code op(i)} for every i below {@code n}, from {@code threads} threads taking the next i. */
  private static void parallel(int threads, int n, IntConsumer op) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      AtomicInteger next = new AtomicInteger();
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        running.add(
            pool.submit(
                () -> {
                  for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                    op.accept(i);
                  }
                }));
      }
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private interface Body {
    void run(Failures failures) throws Exception;
  }

  /** Times {@code body}, which tries {@code attempts} writes, with the load and CPU around it. */
  private static Phase measure(String name, int attempts, Body body) throws Exception {
    Failures failures = new Failures();
    String loadStart = LoadAverage.now().split(" ")[0];
    double cpu0 = cpuSeconds();
    long t0 = System.nanoTime();
    body.run(failures);
    double seconds = (System.nanoTime() - t0) / 1e9;
    return new Phase(
        name,
        attempts - failures.count.get() - failures.skipped.get(),
        failures.count.get(),
        seconds,
        loadStart,
        LoadAverage.now().split(" ")[0],
        cpuSeconds() - cpu0,
        failures.first);
  }

  private static double cpuSeconds() {
    return ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime() / 1e9
        : Double.NaN;
  }

  private static String report(int threads, List<Phase> phases, Map<String, Long> requests) {
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "%n[write-rate] %d threads%n", threads));
    out.append(
        "  phase            writes  failed      s  writes/s  load 1-min start->end"
            + "  benchmark JVM CPU s\n");
    for (Phase p : phases) {
      out.append(
          String.format(
              Locale.ROOT,
              "  %-15s %7d %7d %6.1f %9.1f  %10s -> %-6s %10.1f%n",
              p.name(),
              p.writes(),
              p.failed(),
              p.seconds(),
              p.rate(),
              p.loadStart(),
              p.loadEnd(),
              p.cpuSeconds()));
      if (p.firstFailure() != null) {
        out.append("    first failure: ").append(p.firstFailure()).append('\n');
      }
    }
    out.append("  API requests (apiserver_request_total) by verb and resource:\n");
    long writes = 0;
    for (var e : requests.entrySet()) {
      out.append(String.format(Locale.ROOT, "    %-40s %8d%n", e.getKey(), e.getValue()));
      String verb = e.getKey().substring(0, e.getKey().indexOf(' '));
      if (List.of("POST", "PUT", "PATCH", "DELETE").contains(verb)) {
        writes += e.getValue();
      }
    }
    out.append(String.format(Locale.ROOT, "  writes in all: %d%n", writes));
    return out.toString();
  }
}
