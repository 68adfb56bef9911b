package dev.berth.operator.kube;

import io.fabric8.kubernetes.client.http.WebSocket;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A deadline on a WebSocket watch's silence: one that has heard nothing (no event, no BOOKMARK) for
 * the bound is ended as failed, and fabric8 opens it again from its last resourceVersion, as after
 * any dropped connection. Without it an informer whose watch is answered and then goes silent
 * without its connection closing (a relay or load balancer that kept one side of a connection whose
 * other side went with a kube-apiserver restart: the fault suite's "cause 2") hears nothing until
 * fabric8's own rotation of the watch, 5 to 10 minutes later, and with it finished Jobs never give
 * their quota back.
 *
 * <p>A live watch is rarely that silent: fabric8's informers ask for bookmarks ({@code
 * allowWatchBookmarks=true}), and kube-apiserver sends one on each such watch about once a minute
 * once its watch cache has seen a change, or an etcd progress notification, of that resource. A
 * resource nobody writes (a fresh API server's ResourceFlavors, say) may get none for longer
 * (etcd's progress notifications come every 10 minutes by default); its watch is then re-opened
 * each bound for nothing, which costs one watch request from the last resourceVersion, so that is
 * logged at INFO.
 */
public final class WatchSilence {
  private static final Logger LOG = LoggerFactory.getLogger(WatchSilence.class);

  public static final Duration DEFAULT = Duration.ofSeconds(120);

  /** One daemon thread for every watch of the process: it only compares two clocks. */
  private static final ScheduledExecutorService TIMER = timer();

  private final Duration bound;

  WatchSilence(Duration bound) {
    if (bound.isNegative()) {
      throw new IllegalArgumentException("watch silence bound must not be negative: " + bound);
    }
    this.bound = bound;
  }

  public Duration bound() {
    return bound;
  }

  /** {@code listener} of a watch at {@code uri}, held to the bound (unchanged when it is off). */
  WebSocket.Listener guard(URI uri, WebSocket.Listener listener) {
    return bound.isZero() ? listener : new Guard(uri, listener, bound.toNanos());
  }

  /** The failure a silent watch ends with. */
  static final class SilentWatchException extends IOException {
    SilentWatchException(String message) {
      super(message);
    }
  }

  /**
   * Passes every callback on and notes when the watch last heard something; a check due a bound
   * after that ends the watch if nothing came since. After the end it passes nothing on: fabric8
   * has been told the watch failed and opens another one.
   */
  private static final class Guard implements WebSocket.Listener {
    private final URI uri;
    private final WebSocket.Listener delegate;
    private final long boundNanos;
    private final AtomicBoolean ended = new AtomicBoolean();

    /**
     * Messages being handled: the next ones wait for them (fabric8 asks for one message at a time),
     * so a slow handler is no silence. A cold Jackson deserializer on a loaded machine takes
     * seconds over its first event.
     */
    private final AtomicInteger handling = new AtomicInteger();

    private volatile long heard = System.nanoTime();

    Guard(URI uri, WebSocket.Listener delegate, long boundNanos) {
      this.uri = uri;
      this.delegate = delegate;
      this.boundNanos = boundNanos;
    }

    @Override
    public void onOpen(WebSocket webSocket) {
      heard = System.nanoTime();
      checkIn(webSocket, boundNanos);
      delegate.onOpen(webSocket);
    }

    @Override
    public void onMessage(WebSocket webSocket, String text) {
      if (heard()) {
        try {
          delegate.onMessage(webSocket, text);
        } finally {
          handled();
        }
      }
    }

    @Override
    public void onMessage(WebSocket webSocket, ByteBuffer bytes) {
      if (heard()) {
        try {
          delegate.onMessage(webSocket, bytes);
        } finally {
          handled();
        }
      }
    }

    /** A message came; false if the watch has ended already. */
    private boolean heard() {
      if (ended.get()) {
        return false;
      }
      handling.incrementAndGet();
      heard = System.nanoTime();
      return true;
    }

    private void handled() {
      heard = System.nanoTime();
      handling.decrementAndGet();
    }

    @Override
    public void onClose(WebSocket webSocket, int code, String reason) {
      if (ended.compareAndSet(false, true)) {
        delegate.onClose(webSocket, code, reason);
      }
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
      if (ended.compareAndSet(false, true)) {
        delegate.onError(webSocket, error);
      }
    }

    private void checkIn(WebSocket webSocket, long delayNanos) {
      TIMER.schedule(() -> check(webSocket), delayNanos, TimeUnit.NANOSECONDS);
    }

    private void check(WebSocket webSocket) {
      if (ended.get()) {
        return;
      }
      long silent = System.nanoTime() - heard;
      if (silent < boundNanos || handling.get() > 0) {
        checkIn(webSocket, Math.max(boundNanos - silent, boundNanos / 10));
        return;
      }
      if (!ended.compareAndSet(false, true)) {
        return;
      }
      String message =
          "watch "
              + uri.getRawPath()
              + " heard nothing for "
              + TimeUnit.NANOSECONDS.toSeconds(silent)
              + " s (no event, no bookmark): its connection may be dead, so the watch is"
              + " opened again from its last resourceVersion";
      LOG.debug(message);
      try {
        webSocket.sendClose(1000, "silent for too long");
      } finally {
        delegate.onError(webSocket, new SilentWatchException(message));
      }
    }
  }

  private static ScheduledExecutorService timer() {
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "berth-watch-silence");
              t.setDaemon(true);
              return t;
            });
    timer.setRemoveOnCancelPolicy(true);
    return timer;
  }
}
