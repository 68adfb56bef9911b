package dev.berth.operator.visibility;

import dev.berth.engine.PendingEntry;
import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.integration.OwnerStatuses;
import dev.berth.webhook.server.AsyncHttpsServer;
import dev.berth.webhook.server.AsyncHttpsServer.Reply;
import dev.berth.webhook.server.AsyncHttpsServer.Request;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The web dashboard: static HTML, JavaScript and CSS under {@code /dashboard/} (no data in them),
 * and {@code /dashboard/api/v1/state}, the JSON the page polls with the caller's bearer token.
 *
 * <p>The same rules as the visibility API: the token is checked by a TokenReview, and a
 * SubjectAccessReview per namespace decides which pending workloads and decisions the caller sees
 * ({@code list workloads.berth.dev} there). ClusterQueues and cohorts need {@code list
 * clusterqueues.berth.dev}, topology domains {@code list topologies.berth.dev}, budgets {@code list
 * budgets.berth.dev} (all cluster-wide); without them those parts are null.
 */
public final class DashboardEndpoint implements AsyncHttpsServer.Handler {
  public static final String PATH = "/dashboard/";
  static final String STATE = PATH + "api/v1/state";

  /**
   * Pending workloads listed per ClusterQueue, the next ones to be admitted (the visibility API
   * lists them all); the count of all the caller may see comes with them.
   */
  static final int PENDING_SHOWN = 100;

  /** The only files served: no path from the request reaches the class path. */
  private static final Map<String, String> FILES =
      Map.of(
          "index.html", "text/html; charset=utf-8",
          "dashboard.js", "text/javascript; charset=utf-8",
          "dashboard.css", "text/css; charset=utf-8");

  /** Scripts and styles from this origin only; no inline code, no framing, no other hosts. */
  private static final String POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self';"
          + " connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self';"
          + " frame-ancestors 'none'";

  private final CallerCache callers;
  private final LoopReads loop;
  private final RecentDecisions recent;
  private final java.util.function.Supplier<List<Map<String, Object>>> budgets;
  private final OwnerStatuses owners;

  /**
   * @param budgets each Budget's current window as last evaluated (docs/budgets.md)
   * @param owners each pending Workload's owner and its state
   */
  public DashboardEndpoint(
      KubernetesClient client,
      AdmissionLoop loop,
      RecentDecisions recent,
      java.util.function.Supplier<List<Map<String, Object>>> budgets,
      OwnerStatuses owners) {
    this.callers = new CallerCache(client, java.time.Clock.systemUTC());
    this.loop = new LoopReads(loop);
    this.recent = recent;
    this.budgets = budgets;
    this.owners = owners;
  }

  @Override
  public Reply handle(Request request) {
    try {
      return serve(request);
    } catch (RequestIdentity.Unauthenticated e) {
      return Responses.respond(401, Responses.error(e.getMessage()));
    } catch (KubernetesClientException e) {
      return Responses.respond(
          503, Responses.error("the API server did not answer a review: " + e.getCode()));
    } catch (IOException | RuntimeException e) {
      return Responses.respond(500, Responses.error(e.toString()));
    }
  }

  private Reply serve(Request request) throws IOException, RequestIdentity.Unauthenticated {
    String path = request.path();
    if (path.equals(STATE)) {
      return state(request);
    }
    String file = path.equals(PATH) ? "index.html" : path.substring(PATH.length());
    if (!FILES.containsKey(file)) {
      return Responses.respond(404, Responses.error("no such page: " + path));
    }
    try (InputStream in = DashboardEndpoint.class.getResourceAsStream("/dashboard/" + file)) {
      if (in == null) {
        throw new IllegalStateException("dashboard/" + file + " is not in the jar");
      }
      return Responses.send(
          200,
          FILES.get(file),
          Map.of(
              "Content-Security-Policy", POLICY,
              "Referrer-Policy", "no-referrer",
              "X-Frame-Options", "DENY"),
          in.readAllBytes());
    }
  }

  private Reply state(Request request) throws RequestIdentity.Unauthenticated {
    RequestIdentity caller = RequestIdentity.authenticate(callers, request);
    if (!loop.ready()) {
      return Responses.respond(
          503, Responses.error("this replica does not admit (not the leader, or starting)"));
    }
    DashboardSnapshot snapshot = loop.read(DashboardSnapshot::of);
    if (snapshot == null) {
      return Responses.respond(503, Responses.error("the admission loop did not answer in time"));
    }
    boolean queues = caller.mayList("clusterqueues", null);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("kind", "DashboardState");
    body.put("apiVersion", "visibility.berth.dev/v1");
    body.put("user", caller.user());
    body.put("generatedAt", Instant.now().toString());
    body.put("clusterQueues", queues ? snapshot.clusterQueues() : null);
    body.put("cohorts", queues ? snapshot.cohorts() : null);
    body.put("pending", pending(snapshot, caller, queues));
    body.put("recent", recent(caller));
    body.put("topology", caller.mayList("topologies", null) ? snapshot.topology() : null);
    body.put("budgets", caller.mayList("budgets", null) ? budgets.get() : null);
    return Responses.json(200, body);
  }

  /**
   * Per ClusterQueue, the first {@link #PENDING_SHOWN} pending workloads of the namespaces the
   * caller may list, with their places in the whole queue (a gap shows that someone else is ahead).
   * A ClusterQueue with none of them is left out, unless the caller may list ClusterQueues.
   */
  private List<Map<String, Object>> pending(
      DashboardSnapshot snapshot, RequestIdentity caller, boolean everyQueue) {
    List<Map<String, Object>> out = new ArrayList<>();
    snapshot
        .pending()
        .forEach(
            (cq, entries) -> {
              List<Map<String, Object>> items = new ArrayList<>();
              int visible = 0;
              for (PendingEntry e : entries) {
                if (caller.mayListWorkloads(e.namespace())) {
                  if (++visible <= PENDING_SHOWN) {
                    items.add(VisibilityEndpoint.item(e, owners));
                  }
                }
              }
              if (everyQueue || !items.isEmpty()) {
                Map<String, Object> q = new LinkedHashMap<>();
                q.put("clusterQueue", cq);
                q.put("visible", visible);
                q.put("items", items);
                out.add(q);
              }
            });
    return out;
  }

  /**
   * The decisions about workloads of namespaces the caller may list; a preemptor elsewhere is not
   * named.
   */
  private List<Map<String, Object>> recent(RequestIdentity caller) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (RecentDecisions.Decision d : recent.snapshot()) {
      if (!caller.mayListWorkloads(d.namespace())) {
        continue;
      }
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("time", Instant.ofEpochMilli(d.at()).toString());
      row.put("kind", d.kind());
      row.put("namespace", d.namespace());
      row.put("name", d.name());
      row.put("clusterQueue", d.clusterQueue());
      row.put("reason", d.reason());
      row.put("message", d.message());
      boolean named =
          d.preemptorNamespace() != null && caller.mayListWorkloads(d.preemptorNamespace());
      row.put("preemptor", named ? d.preemptorNamespace() + "/" + d.preemptorName() : null);
      out.add(row);
    }
    return out;
  }
}
