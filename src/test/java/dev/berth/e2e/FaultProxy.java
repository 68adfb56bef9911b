package dev.berth.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on 127.0.0.1 in front of the real API server that injects connection faults on a
 * seeded schedule: a connection is refused at once, or cut at a chosen moment while requests and
 * responses flow (a write that reached the server loses its reply; a watch is dropped). TLS passes
 * through untouched, so the client still verifies the API server's own certificate. It injects no
 * HTTP status codes: those need TLS termination (see docs/reliability.md).
 */
final class FaultProxy implements AutoCloseable {
  private final ServerSocket server;
  private final InetSocketAddress upstream;
  private final Random schedule;
  private final double refuseRate;
  private final double cutRate;
  private final ScheduledExecutorService cutter = Executors.newSingleThreadScheduledExecutor();
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private final Thread acceptor;
  private volatile boolean faults = true;
  final AtomicInteger connections = new AtomicInteger();
  final AtomicInteger refused = new AtomicInteger();
  final AtomicInteger cut = new AtomicInteger();

  FaultProxy(InetSocketAddress upstream, long seed, double refuseRate, double cutRate)
      throws IOException {
    this.upstream = upstream;
    this.schedule = new Random(seed);
    this.refuseRate = refuseRate;
    this.cutRate = cutRate;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::accept, "fault-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  /** From now on, connections pass untouched (the end of a run: let everything settle). */
  void stopFaults() {
    faults = false;
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        connections.incrementAndGet();
        double roll;
        long cutAfter;
        synchronized (schedule) {
          roll = schedule.nextDouble();
          cutAfter = 200 + schedule.nextInt(4_000);
        }
        if (faults && roll < refuseRate) {
          refused.incrementAndGet();
          client.setSoLinger(true, 0);
          client.close();
          continue;
        }
        Socket up = new Socket(upstream.getAddress(), upstream.getPort());
        open.add(client);
        open.add(up);
        pump(client, up);
        pump(up, client);
        if (faults && roll < refuseRate + cutRate) {
          cutter.schedule(
              () -> {
                if (faults && !client.isClosed()) {
                  cut.incrementAndGet();
                  reset(client);
                  reset(up);
                }
              },
              cutAfter,
              TimeUnit.MILLISECONDS);
        }
      } catch (IOException e) {
        if (server.isClosed()) {
          return;
        }
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException e) {
                // Cut, or the other side closed.
              } finally {
                reset(from);
                reset(to);
              }
            },
            "fault-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private void reset(Socket s) {
    try {
      if (!s.isClosed()) {
        s.setSoLinger(true, 0);
        s.close();
      }
    } catch (IOException e) {
      // Already gone.
    }
    open.remove(s);
  }

  @Override
  public void close() throws IOException {
    server.close();
    cutter.shutdownNow();
    for (Socket s : open) {
      reset(s);
    }
  }
}
