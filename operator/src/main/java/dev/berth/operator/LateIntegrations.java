package dev.berth.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code integrations.frameworks} turns on but whose CRD was not installed at start: each
 * waits for its CRD ({@link IntegrationWatch}) and switches on when it is served, with no restart.
 *
 * <p>JOSDK 5 registers controllers only before an {@code Operator} starts, so what switches on late
 * runs in an {@code Operator} of its own, with the main one's settings and client but no Lease of
 * its own: it is started only while this replica holds the main one's Lease (or runs without leader
 * election). A standby notes the CRD and switches the kind on when it takes the Lease, as its other
 * controllers start processing events then. Its own informers start with it, so a standby does not
 * keep a warm cache of a late kind; the leader's first list of it is its whole history, since
 * nothing made Workloads for it before. A replica that loses the Lease stops admitting and exits
 * (or fails its liveness probe), late controllers with the rest, so none is ever started twice in
 * one process. Starts run on one thread of their own: never on the informer's thread that saw the
 * CRD, nor on the thread that won the Lease.
 */
final class LateIntegrations implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LateIntegrations.class);

  /**
   * One thing to switch on.
   *
   * @param name what the log calls it: the kind, e.g. {@code JobSet}
   * @param crd the CRD it waits for, e.g. {@code jobsets.jobset.x-k8s.io}
   * @param controllers registers its controllers with the Operator that will run them
   * @param switchedOn runs once they run (e.g. telling a reconciler of the main Operator)
   */
  record Late(String name, String crd, Consumer<Operator> controllers, Runnable switchedOn) {}

  private final List<Late> waiting;
  private final Supplier<Operator> operators;
  private final BooleanSupplier leading;
  private final List<IntegrationWatch> watches = new ArrayList<>();
  private final ExecutorService switches =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "berth-late-integrations");
            t.setDaemon(true);
            return t;
          });

  /** Installed, in the order their CRDs appeared; read and written on {@link #switches} only. */
  private final Set<Late> installed = new LinkedHashSet<>();

  /** Switched on, with the Operator running each; written on {@link #switches} only. */
  private final Map<Late, Operator> running = new LinkedHashMap<>();

  private final List<String> on = new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  /** The operator has started ({@link #begin}); on {@link #switches} only. */
  private boolean begun;

  /**
   * @param operators a new Operator with the main one's settings and no leader election
   * @param leading whether this replica admits now (holds the Lease, or runs without election)
   */
  LateIntegrations(
      KubernetesClient client,
      List<Late> waiting,
      Supplier<Operator> operators,
      BooleanSupplier leading) {
    this.waiting = List.copyOf(waiting);
    this.operators = operators;
    this.leading = leading;
    for (Late late : this.waiting) {
      log.info("{} integration waiting: CRD {} not installed", late.name(), late.crd());
      watches.add(new IntegrationWatch(client, late.crd(), () -> submit(() -> installed(late))));
    }
  }

  /** What switched on after start, in order, e.g. {@code [JobSet]}. */
  List<String> switchedOn() {
    return List.copyOf(on);
  }

  /**
   * The operator has started (its main Operator, and with it the Lease election): from now on what
   * is installed switches on where this replica leads. A CRD seen before only waits for this, so
   * that nothing starts ahead of the operator, nor on a replica whose election has not begun.
   */
  void begin() {
    submit(
        () -> {
          begun = true;
          startWhereLeading();
        });
  }

  /** This replica took the Lease: what was installed meanwhile switches on now. */
  void startedLeading() {
    submit(this::startWhereLeading);
  }

  private void startWhereLeading() {
    if (begun && leading.getAsBoolean()) {
      installed.forEach(this::switchOn);
    }
  }

  private void installed(Late late) {
    if (!installed.add(late) || !begun) {
      return;
    }
    if (leading.getAsBoolean()) {
      switchOn(late);
    } else {
      log.debug("{} is installed; {} switches on if this replica leads", late.crd(), late.name());
    }
  }

  private void switchOn(Late late) {
    synchronized (running) {
      if (closed || running.containsKey(late)) {
        return;
      }
    }
    Operator operator = operators.get();
    try {
      late.controllers().accept(operator);
      operator.start();
    } catch (RuntimeException e) {
      // Left installed and not running: a later Lease (a restart) tries again from nothing.
      log.error("{} integration could not start", late.name(), e);
      operator.stop();
      return;
    }
    synchronized (running) {
      running.put(late, operator);
    }
    on.add(late.name());
    late.switchedOn().run();
    log.info("{} integration on: CRD {} installed after start", late.name(), late.crd());
  }

  private void submit(Runnable task) {
    if (!closed) {
      try {
        switches.execute(task);
      } catch (java.util.concurrent.RejectedExecutionException stopping) {
        // closed meanwhile: nothing switches on any more.
      }
    }
  }

  /** Stops the watches, then what switched on (a start under way finishes first, bounded). */
  @Override
  public void close() {
    closed = true;
    watches.forEach(IntegrationWatch::close);
    switches.shutdown();
    try {
      if (!switches.awaitTermination(30, TimeUnit.SECONDS)) {
        log.warn("a late integration was still starting after 30 s; stopping anyway");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (running) {
      running.values().forEach(Operator::stop);
    }
  }
}
