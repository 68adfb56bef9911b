package dev.berth.webhook.server;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import javax.net.ssl.X509KeyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTPS endpoint the API server calls: AdmissionReview v1 in, AdmissionReview v1 out, on the
 * {@link AsyncHttpsServer} (its limits, drain and 4xx answers are described there). Every replica
 * serves it (it holds no leader-only state).
 *
 * <p>What is the webhook's own: each path is POSTed an AdmissionReview; a body that is not one gets
 * 400, and a handler failure becomes a refusal with a message, never a 5xx, since for a managed Job
 * "allowed" could mean running unsuspended.
 */
public final class WebhookServer {
  private static final Logger LOG = LoggerFactory.getLogger(WebhookServer.class);

  /** An object and its old version are each at most ~1.5 MiB in etcd; allow both plus framing. */
  static final int MAX_BODY_BYTES = AsyncHttpsServer.MAX_BODY_BYTES;

  private final AsyncHttpsServer server;

  /**
   * @param keys serving key manager; a {@code ServingKeyManager} swaps its certificate while the
   *     server runs, and new handshakes get the new one
   */
  public WebhookServer(Map<String, AdmissionHandler> routes, X509KeyManager keys, int threads) {
    this(routes, keys, AsyncHttpsServer.Limits.withThreads(threads));
  }

  public WebhookServer(
      Map<String, AdmissionHandler> routes, X509KeyManager keys, AsyncHttpsServer.Limits limits) {
    Map<String, AsyncHttpsServer.Route> served = new HashMap<>();
    routes.forEach(
        (path, handler) ->
            served.put(path, new AsyncHttpsServer.Route("POST", r -> evaluate(handler, r))));
    this.server = new AsyncHttpsServer("webhook", served, WebhookPaths.HEALTH, keys, limits);
  }

  /** Starts on all interfaces; port 0 picks a free port. Returns the bound port. */
  public int start(int port) throws IOException {
    return start("0.0.0.0", port);
  }

  public int start(String host, int port) throws IOException {
    return server.start(host, port);
  }

  public int port() {
    return server.port();
  }

  /** Requests evaluated or waiting for a handler thread right now. */
  public int inFlight() {
    return server.inFlight();
  }

  /**
   * Graceful stop: from now on new requests get 503 (the API server retries another replica or
   * applies the failure policy), requests already received are answered, then the port closes.
   */
  public void stop() {
    server.stop();
  }

  /** On a handler thread: parse, decide, render. Never throws. */
  private static AsyncHttpsServer.Reply evaluate(
      AdmissionHandler handler, AsyncHttpsServer.Request request) {
    AdmissionCall call;
    try {
      call = AdmissionReviewCodec.parse(request.body());
    } catch (MalformedReviewException e) {
      return json(400, AsyncHttpsServer.errorBody(400, e.getMessage()));
    } catch (RuntimeException | StackOverflowError e) {
      LOG.warn("unexpected failure reading a webhook request", e);
      return json(400, AsyncHttpsServer.errorBody(400, "unreadable AdmissionReview"));
    }
    return json(200, AdmissionReviewCodec.render(call, decide(handler, call, request.path())));
  }

  private static AsyncHttpsServer.Reply json(int code, byte[] body) {
    return new AsyncHttpsServer.Reply(code, "application/json", Map.of(), body);
  }

  private static AdmissionAnswer decide(AdmissionHandler handler, AdmissionCall call, String path) {
    try {
      return handler.handle(call);
    } catch (RuntimeException | StackOverflowError e) {
      // Refuse rather than allow: for a managed Job, "allowed" could mean running unsuspended.
      LOG.warn(
          "webhook {} failed on {} {}/{}",
          path,
          call.operation(),
          call.namespace(),
          call.name(),
          e);
      return new AdmissionAnswer.Refuse(
          400,
          "BadRequest",
          "the Berth webhook could not evaluate this "
              + (call.kind() == null ? "object" : call.kind())
              + ": "
              + e.getClass().getSimpleName());
    }
  }
}
