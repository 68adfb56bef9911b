package dev.berth.operator.admission;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.TreeSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admission loop's writers: a bounded pool of threads that send the loop's API writes, so the
 * loop decides and never waits on the network.
 *
 * <p>Per object order is kept: at most one write per key (a Workload's UID, a queue's kind and
 * name) is on the wire; the next one for that key is prepared on the loop thread, from the state as
 * the previous write left it, only once that write's result is back. A write's result comes back to
 * the loop as an observation, applied before the next cycle. While a Workload's write is on the
 * wire its watch events are held by {@link ClusterState} and applied after the result, so the
 * engine sees the two in the order a synchronous write would give.
 *
 * <p>Bounded: at most {@link WriterSettings#queue()} writes are in flight or waiting; {@link
 * #submit} refuses more, and the caller keeps the decision for later (an admission is rolled back
 * and decided again, an eviction is asked again by the next cycle, a status stays due). Requests
 * are paced by a token bucket ({@link WriterSettings#qps()}, {@link WriterSettings#burst()}).
 *
 * <p>Stopping: the loop drains the pool before it closes it ({@link AdmissionLoop#close}), so what
 * it holds is sent while this replica still holds the Lease. Once the Lease is lost ({@link
 * #fence}) nothing more is sent: another replica may be deciding by then, and a write prepared from
 * this one's view could admit into quota the new leader has given away.
 *
 * <p>Everything but {@link Write#send()} runs on the loop thread.
 */
public final class WritePool implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WritePool.class);

  /** One write, prepared on the loop thread. */
  @FunctionalInterface
  public interface Write {
    /**
     * Sends it (on a writer thread) and returns what to apply on the loop thread with its result:
     * the written object, a rollback, a read-back's verdict.
     */
    Consumer<ClusterState> send();
  }

  private record Queued(long sequence, Supplier<Write> prepare) {}

  private final ThreadPoolExecutor writers;
  private final int threads;
  private final int limit;
  private final WriteRate rate;
  private final ClusterState state;

  /** Keys with a write on the wire, and the writes waiting behind it. */
  private final Map<String, Queue<Queued>> waiting = new HashMap<>();

  /** Sequence numbers of the writes submitted and not yet back (or dropped). */
  private final TreeSet<Long> outstanding = new TreeSet<>();

  private long sequence;

  /** The Lease is lost: writes not yet on the wire are dropped. */
  private volatile boolean fenced;

  /** Writes dropped since the fence (writer threads). */
  private final AtomicInteger dropped = new AtomicInteger();

  /**
   * What the writers did, for the metrics ({@link Activity}): written by the writer threads and
   * read by a scrape, so kept apart from the loop thread's own bookkeeping above.
   */
  private final LongAdder sentWrites = new LongAdder();

  private final LongAdder sendingNanos = new LongAdder();
  private final LongAdder throttledNanos = new LongAdder();

  /** {@code outstanding.size()} as last set by the loop thread, for a scrape to read. */
  private volatile int outstandingSeen;

  private Consumer<Consumer<ClusterState>> results =
      r -> {
        throw new IllegalStateException("WritePool not attached to an admission loop");
      };

  public WritePool(WriterSettings settings, ClusterState state) {
    this.state = state;
    this.threads = settings.threads();
    this.limit = settings.queue();
    this.rate = new WriteRate(settings.qps(), settings.burst());
    AtomicInteger n = new AtomicInteger();
    this.writers =
        new ThreadPoolExecutor(
            settings.threads(),
            settings.threads(),
            0,
            TimeUnit.MILLISECONDS,
            // One task per key at most, and at most `limit` keys: the queue never refuses.
            new ArrayBlockingQueue<>(settings.queue()),
            r -> {
              Thread t = new Thread(r, "berth-writer-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  /** Where results go: the loop's inbox. Set once by the loop. */
  public void deliverTo(Consumer<Consumer<ClusterState>> results) {
    this.results = results;
  }

  /**
   * Queues a write for {@code key}. {@code prepare} runs on the loop thread, now if nothing is in
   * flight for the key, else after the write before it came back; it returns null when there is
   * nothing left to write by then. Returns false, and queues nothing, when the pool is full.
   */
  public boolean submit(String key, Supplier<Write> prepare) {
    if (outstanding.size() >= limit) {
      return false;
    }
    Queued queued = new Queued(++sequence, prepare);
    outstanding.add(queued.sequence());
    outstandingSeen = outstanding.size();
    Queue<Queued> queue = waiting.get(key);
    if (queue != null) {
      queue.add(queued);
      return true;
    }
    start(key, queued);
    return true;
  }

  /** The sequence number of the last write submitted so far. */
  public long lastSubmitted() {
    return sequence;
  }

  /** Every write submitted up to {@code mark} is back (or had nothing left to write). */
  public boolean settled(long mark) {
    return outstanding.isEmpty() || outstanding.first() > mark;
  }

  /** A write for {@code key} is on the wire or waiting. */
  public boolean busy(String key) {
    return waiting.containsKey(key);
  }

  /** Writes in flight or waiting. */
  public int outstanding() {
    return outstanding.size();
  }

  /** Writer threads with nothing to send now: a write submitted goes on the wire at once. */
  public int idleWriters() {
    return Math.max(0, threads - outstanding.size());
  }

  /**
   * What the writers have done so far, for the metrics: an admin reads from it whether writes wait
   * on the API server (the writers busy sending nearly all the time: more writers cannot help) or
   * on the client's own rate bound (time throttled: BERTH_WRITE_QPS is the limit).
   *
   * @param writers writer threads
   * @param outstanding writes in flight or waiting, as the loop last left them
   * @param sent writes sent (answered, refused or failed)
   * @param sendingSeconds time the writers spent sending them, summed over the writers
   * @param throttledSeconds time the writers waited for the client rate bound, summed likewise
   */
  public record Activity(
      int writers, int outstanding, long sent, double sendingSeconds, double throttledSeconds) {}

  /** Safe from any thread. */
  public Activity activity() {
    return new Activity(
        threads,
        outstandingSeen,
        sentWrites.sum(),
        sendingNanos.sum() / 1e9,
        throttledNanos.sum() / 1e9);
  }

  /** Room for {@code n} more writes. */
  public boolean hasRoom(int n) {
    return outstanding.size() + n <= limit;
  }

  private void start(String key, Queued queued) {
    Write write;
    try {
      write = queued.prepare().get();
    } catch (RuntimeException e) {
      log.error("write for {} not prepared", key, e);
      write = null;
    }
    if (write == null) {
      outstanding.remove(queued.sequence());
      outstandingSeen = outstanding.size();
      next(key);
      return;
    }
    waiting.computeIfAbsent(key, k -> new ArrayDeque<>());
    state.writeStarted(key);
    Write sending = write;
    try {
      writers.execute(() -> send(key, queued.sequence(), sending));
    } catch (RejectedExecutionException closed) {
      // Closing: nothing more goes out, and nothing more comes back.
      waiting.remove(key);
      outstanding.remove(queued.sequence());
      outstandingSeen = outstanding.size();
      state.writeFinished(key);
    }
  }

  /** On a writer thread. */
  private void send(String key, long seq, Write write) {
    Consumer<ClusterState> result;
    try {
      long asked = System.nanoTime();
      rate.acquire();
      long allowed = System.nanoTime();
      throttledNanos.add(allowed - asked);
      if (fenced) {
        // Not sent: what it would have written is the new leader's to decide. Its result is
        // nothing, so the write behind it (if any) is prepared and dropped the same way.
        if (dropped.incrementAndGet() == 1) {
          log.warn("the Lease is lost: writes not yet sent are dropped, starting with {}", key);
        }
        result = s -> {};
      } else {
        try {
          result = write.send();
        } finally {
          sendingNanos.add(System.nanoTime() - allowed);
          sentWrites.increment();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return; // closing: the loop is gone
    } catch (RuntimeException e) {
      log.error("write for {} failed unexpectedly", key, e);
      result = s -> {};
    }
    Consumer<ClusterState> applied = result;
    results.accept(s -> finished(key, seq, applied, s));
  }

  private void finished(String key, long seq, Consumer<ClusterState> result, ClusterState s) {
    try {
      result.accept(s);
    } finally {
      outstanding.remove(seq);
      outstandingSeen = outstanding.size();
      s.writeFinished(key);
      next(key);
    }
  }

  private void next(String key) {
    Queue<Queued> queue = waiting.get(key);
    Queued following = queue == null ? null : queue.poll();
    if (following == null) {
      waiting.remove(key);
      return;
    }
    if (queue.isEmpty()) {
      waiting.remove(key);
    }
    start(key, following);
  }

  /**
   * The Lease is lost: from now on no write is sent, those waiting are dropped as their turn comes.
   * A write already on the wire cannot be called back; the Lease's renew deadline, shorter than its
   * duration, is what keeps it ahead of the next leader.
   */
  public void fence() {
    fenced = true;
  }

  /**
   * Stops the writers. Called once the loop has drained the pool (or its stop deadline passed):
   * what is still waiting is dropped and a write still on the wire is interrupted, so that none
   * meets the client the caller closes next.
   */
  @Override
  public void close() {
    writers.shutdownNow();
    try {
      if (!writers.awaitTermination(2, TimeUnit.SECONDS)) {
        log.warn("writers still running 2 s after the stop");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
