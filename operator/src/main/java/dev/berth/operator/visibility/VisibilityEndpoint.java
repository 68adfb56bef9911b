package dev.berth.operator.visibility;

import dev.berth.engine.PendingEntry;
import dev.berth.engine.quota.Quantity;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.admission.ClusterView;
import dev.berth.operator.integration.OwnerStatuses;
import dev.berth.webhook.server.AsyncHttpsServer;
import dev.berth.webhook.server.AsyncHttpsServer.Reply;
import dev.berth.webhook.server.AsyncHttpsServer.Request;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The read-only visibility API: pending workloads in admission order, with position, priority,
 * requests, reason and estimated start (with its basis; null until the first replay).
 *
 * <ul>
 *   <li>{@code GET /visibility/v1/clusterqueues/{name}/pendingworkloads}: those of the namespaces
 *       the caller may list Workloads in (others are left out, not counted);
 *   <li>{@code GET /visibility/v1/namespaces/{ns}/localqueues/{name}/pendingworkloads}: 403 unless
 *       the caller may list Workloads in {@code ns}.
 * </ul>
 *
 * <p>The caller sends a bearer token (a ServiceAccount token, or any the API server accepts); the
 * API server authenticates it (TokenReview) and authorises it (SubjectAccessReview). The answer is
 * read on the admission loop's thread, which owns the engine; only the leader knows the queues, a
 * standby answers 503.
 */
public final class VisibilityEndpoint implements AsyncHttpsServer.Handler {
  /** The direct paths, called with a bearer token (kubectl berth --visibility-url). */
  public static final String PATH = "/visibility/v1/";

  public static final String GROUP = "visibility.berth.dev";
  public static final String VERSION = "v1beta1";

  /** The aggregated API's group and version, as the API server proxies them. */
  public static final String GROUP_PATH = "/apis/" + GROUP;

  public static final String VERSION_PATH = GROUP_PATH + "/" + VERSION;

  private static final String PREFIX =
      "("
          + Pattern.quote(PATH.substring(0, PATH.length() - 1))
          + "|"
          + Pattern.quote(VERSION_PATH)
          + ")";
  private static final Pattern CLUSTER_QUEUE =
      Pattern.compile(PREFIX + "/clusterqueues/([^/]+)/pendingworkloads");
  private static final Pattern LOCAL_QUEUE =
      Pattern.compile(PREFIX + "/namespaces/([^/]+)/localqueues/([^/]+)/pendingworkloads");

  private final CallerCache callers;
  private final FrontProxy proxy;
  private final LoopReads loop;
  private final OwnerStatuses owners;

  /**
   * @param owners each pending Workload's owner and its state, from the informers' caches
   */
  public VisibilityEndpoint(KubernetesClient client, AdmissionLoop loop, OwnerStatuses owners) {
    this.callers = new CallerCache(client, java.time.Clock.systemUTC());
    this.proxy = new FrontProxy(client);
    this.loop = new LoopReads(loop);
    this.owners = owners;
  }

  /** Who may call through the API server: its front proxy, as its ConfigMap describes it. */
  public FrontProxy frontProxy() {
    return proxy;
  }

  @Override
  public Reply handle(Request request) {
    try {
      return serve(request);
    } catch (RequestIdentity.Unauthenticated e) {
      return respond(401, error(e.getMessage()));
    } catch (KubernetesClientException e) {
      return respond(503, error("the API server did not answer a review: " + e.getCode()));
    } catch (RuntimeException e) {
      return respond(500, error(e.toString()));
    }
  }

  private Reply serve(Request request) throws RequestIdentity.Unauthenticated {
    String path = request.path();
    Matcher cq = CLUSTER_QUEUE.matcher(path);
    Matcher lq = LOCAL_QUEUE.matcher(path);
    if (path.equals(GROUP_PATH) || path.equals(VERSION_PATH)) {
      RequestIdentity.authenticate(callers, proxy, request);
      return Responses.json(
          200, path.equals(GROUP_PATH) ? Discovery.group() : Discovery.resources());
    }
    if (!cq.matches() && !lq.matches()) {
      return respond(
          404,
          error(
              "no such path: "
                  + path
                  + "; try "
                  + PATH
                  + "clusterqueues/NAME/pendingworkloads or "
                  + PATH
                  + "namespaces/NS/localqueues/NAME/pendingworkloads (or the same under "
                  + VERSION_PATH
                  + "/)"));
    }
    Matcher matched = cq.matches() ? cq : lq;
    String apiVersion =
        matched.group(1).equals(VERSION_PATH) ? GROUP + "/" + VERSION : GROUP + "/v1";
    RequestIdentity caller = RequestIdentity.authenticate(callers, proxy, request);
    if (lq.matches() && !caller.mayListWorkloads(lq.group(2))) {
      return respond(
          403,
          error(
              "user "
                  + caller.user()
                  + " may not list workloads.berth.dev"
                  + " in namespace "
                  + lq.group(2)));
    }
    if (!loop.ready()) {
      return respond(503, error("this replica does not admit (not the leader, or starting)"));
    }
    List<PendingEntry> entries =
        cq.matches() ? pending(cq.group(2)) : pendingOfLocalQueue(lq.group(2), lq.group(3));
    if (entries == null) {
      return respond(503, error("the admission loop did not answer in time"));
    }
    List<Map<String, Object>> items = new ArrayList<>();
    for (PendingEntry e : entries) {
      if (caller.mayListWorkloads(e.namespace())) {
        items.add(item(e, owners));
      }
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("kind", "PendingWorkloadsSummary");
    body.put("apiVersion", apiVersion);
    if (cq.matches()) {
      body.put("clusterQueue", cq.group(2));
    } else {
      body.put("namespace", lq.group(2));
      body.put("localQueue", lq.group(3));
    }
    body.put("items", items);
    return Responses.json(200, body);
  }

  private List<PendingEntry> pendingOfLocalQueue(String namespace, String name) {
    List<PendingEntry> all =
        onLoop(
            state -> {
              var lq =
                  state.localQueues().stream()
                      .filter(
                          q ->
                              q.getMetadata().getNamespace().equals(namespace)
                                  && q.getMetadata().getName().equals(name))
                      .findFirst()
                      .orElse(null);
              if (lq == null || lq.getSpec() == null) {
                return List.of();
              }
              return state.engineStatus().pendingWorkloads(lq.getSpec().clusterQueue);
            });
    return all == null
        ? null
        : all.stream()
            .filter(e -> e.namespace().equals(namespace) && e.localQueue().equals(name))
            .toList();
  }

  private List<PendingEntry> pending(String clusterQueue) {
    return onLoop(state -> state.engineStatus().pendingWorkloads(clusterQueue));
  }

  private List<PendingEntry> onLoop(Function<ClusterView, List<PendingEntry>> read) {
    return loop.read(state -> List.copyOf(read.apply(state)));
  }

  /**
   * One pending workload as the visibility API and the dashboard show it, with its owner (the
   * object it was made for) and the owner's own state: {@code owner: {kind, name, count, status}},
   * null when the Workload has none.
   */
  static Map<String, Object> item(PendingEntry e, OwnerStatuses owners) {
    Map<String, Object> item = new LinkedHashMap<>();
    item.put("name", e.name());
    item.put("namespace", e.namespace());
    item.put("localQueueName", e.localQueue());
    item.put("clusterQueue", e.clusterQueue());
    item.put("positionInClusterQueue", e.position());
    item.put("positionInLocalQueue", e.localQueuePosition());
    item.put("priority", e.priority());
    Map<String, String> requests = new LinkedHashMap<>();
    e.requests().forEach((r, v) -> requests.put(r, Quantity.format(r, v)));
    item.put("requests", requests);
    item.put("reason", e.reason());
    item.put("message", e.message());
    item.put(
        "estimatedStart",
        e.estimatedStart() == null
            ? null
            : java.time.Instant.ofEpochMilli(e.estimatedStart()).toString());
    item.put("estimateBasis", e.estimateBasis());
    item.put(
        "owner",
        owners
            .of(e.namespace(), e.name())
            .map(
                o -> {
                  Map<String, Object> owner = new LinkedHashMap<>();
                  owner.put("kind", o.kind());
                  owner.put("name", o.name());
                  owner.put("count", o.count());
                  owner.put("status", o.status());
                  return owner;
                })
            .orElse(null));
    return item;
  }

  private static String error(String message) {
    return Responses.error(message);
  }

  private static Reply respond(int code, String body) {
    return Responses.respond(code, body);
  }
}
