package dev.berth.e2e.faults;

import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.http.WebSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One WebSocket relayed by {@link FaultyApiProxy}, as a TCP relay would: what either side sends
 * reaches the other in order, and when either side goes, both go. The API server's side ({@code
 * up}) is taken over as soon as its upgrade is answered, before the operator's side is upgraded
 * ({@link #attach}): what the API server sends or does meanwhile (after a restart, a 410 for a
 * watch from an old resourceVersion, then its close) is held and passed on then, not dropped.
 * Callbacks come on the event loops of both connections, so the state is guarded by this object.
 */
final class WebSocketRelay {
  private final WebSocket up;
  private final HttpConnection downstream;
  private final List<Consumer<ServerWebSocket>> held = new ArrayList<>();
  private ServerWebSocket down;
  private boolean closed;

  WebSocketRelay(WebSocket up, HttpConnection downstream) {
    this.up = up;
    this.downstream = downstream;
    up.textMessageHandler(m -> toDown(d -> d.writeTextMessage(m)));
    up.binaryMessageHandler(m -> toDown(d -> d.writeBinaryMessage(m)));
    // The close frame comes in order after the last message; the connection may go without one.
    up.endHandler(v -> close());
    up.closeHandler(v -> close());
    up.exceptionHandler(e -> close());
  }

  /** The operator's side is upgraded: what was held goes first. */
  synchronized void attach(ServerWebSocket down) {
    this.down = down;
    down.textMessageHandler(up::writeTextMessage);
    down.binaryMessageHandler(up::writeBinaryMessage);
    down.closeHandler(v -> close());
    down.exceptionHandler(e -> close());
    held.forEach(h -> h.accept(down));
    held.clear();
    if (closed) {
      closeDown();
    }
  }

  /** The operator's side could not be upgraded. */
  synchronized void abort() {
    closed = true;
    up.close();
    downstream.close();
  }

  /** Cuts both connections at once (an injected watch drop); false if they had gone already. */
  synchronized boolean cut() {
    if (closed) {
      return false;
    }
    abort();
    return true;
  }

  private synchronized void toDown(Consumer<ServerWebSocket> write) {
    if (closed) {
      return;
    }
    if (down == null) {
      held.add(write);
    } else {
      write.accept(down);
    }
  }

  private synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    up.close();
    if (down != null) {
      closeDown();
    } else if (held.isEmpty()) {
      // Nothing to pass on and no upgrade yet: the operator sees its connection go.
      downstream.close();
    }
  }

  /** The close frame after what was written, then the connection whatever the peer does. */
  private void closeDown() {
    if (down.isClosed()) {
      downstream.close();
      return;
    }
    down.close().onComplete(v -> downstream.close());
  }
}
