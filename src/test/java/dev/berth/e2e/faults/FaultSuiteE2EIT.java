package dev.berth.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.ClusterQueuePreemption;
import dev.berth.api.v1beta1.ClusterQueueSpec;
import dev.berth.api.v1beta1.FlavorQuotas;
import dev.berth.api.v1beta1.LocalQueue;
import dev.berth.api.v1beta1.LocalQueueSpec;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.ResourceFlavorSpec;
import dev.berth.api.v1beta1.ResourceGroup;
import dev.berth.api.v1beta1.ResourceQuota;
import dev.berth.api.v1beta1.WorkloadPriorityClass;
import dev.berth.e2e.plane.ControlPlane;
import dev.berth.e2e.plane.SimNode;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.naming.ldap.LdapName;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;

/**
 * The fault-injection suite: Jobs stream through three ClusterQueues of a cohort (borrowing, and
 * preemption within a ClusterQueue and by reclaim in the cohort, with two priorities) on a whole
 * control plane ({@link ControlPlane}: the Job controller makes the pods, kube-scheduler binds
 * them, KWOK runs them for their run-for time), while two operator replicas, each a JVM of its own
 * ({@link OperatorProcess}) with leader election, reach the cluster only through a {@link
 * FaultyApiProxy} injecting 409s, 429s, 500s, writes that lose their reply and dropped watches on a
 * seeded {@link FaultSchedule}. The replicas run with the chart's Deployment environment and serve
 * the webhooks, registered against the API server as the chart registers them and reached through a
 * {@link WebhookRelay} to whichever replicas are ready, as through the chart's Service; the Jobs
 * are submitted by an ordinary user, so the webhooks see them as a user's. Every {@link
 * #CHAOS_SECONDS} one of: the leader is killed with SIGKILL (the time until the other replica
 * decides is the failover time), a random replica is killed and started again, or the
 * kube-apiserver behind the proxy is killed and started again ({@link ApiServerReplica}). An {@link
 * InvariantWatcher} on a direct connection checks quota and admission at every Workload, Job and
 * pod event, each verdict read from etcd at the event's revision; at the end every Job has
 * completed, admitted once plus once per eviction. One summary line goes to the log and to
 * target/e2e/control-plane/faults-summary.log.
 *
 * <p>In the default run (200 Jobs, 4 to 8 minutes on two shared cores; {@code -Dberth.faults=false}
 * leaves it out), with a new seed each run, printed first so that a failure can be replayed. A
 * violation is reported only once etcd itself confirms it ({@link InvariantWatcher}). On a stall it
 * prints each unfinished Job's status and its Workloads' conditions, and leaves every replica's
 * metrics and a thread dump beside its log. docs/reliability.md has the properties for the
 * 1,000-Job run and a longer soak: berth.faults.jobs, berth.faults.minutes, berth.faults.seed,
 * berth.faults.rate, berth.faults.jobsPerSecond, berth.faults.chaosSeconds.
 */
@DisabledIfSystemProperty(named = "berth.faults", matches = "false")
class FaultSuiteE2EIT {
  private static final double JOBS_PER_SECOND =
      Double.parseDouble(System.getProperty("berth.faults.jobsPerSecond", "2"));
  private static final int JOBS =
      System.getProperty("berth.faults.minutes") != null
          ? (int)
              (Double.parseDouble(System.getProperty("berth.faults.minutes"))
                  * 60
                  * JOBS_PER_SECOND)
          : Integer.getInteger("berth.faults.jobs", 200);
  private static final long SEED = Long.getLong("berth.faults.seed", System.nanoTime());
  private static final double RATE =
      Double.parseDouble(System.getProperty("berth.faults.rate", "0.02"));
  private static final int CHAOS_SECONDS = Integer.getInteger("berth.faults.chaosSeconds", 20);
  private static final String NS = "faults";

  /** Who submits the Jobs: a user with cluster-admin rights, not the operator. */
  private static final String SUBMITTER = "faults-submitter";

  private static final String FLAVOR = "faults-cpu";
  private static final List<String> QUEUES = List.of("faults-a", "faults-b", "faults-c");

  /** Per ClusterQueue, in cpu; the four nodes have 384 cpu, so quota is what limits. */
  private static final int NOMINAL = 10;

  private static final int BORROWING = 10;

  /** Generous: on a machine this busy, a JVM of the operator takes a minute to start. */
  private static final Duration FAILOVER_LIMIT = Duration.ofSeconds(180);

  private static final Duration STALL = Duration.ofSeconds(180);

  private enum Chaos {
    KILL_LEADER,
    KILL_ANY_REPLICA,
    RESTART_API_SERVER
  }

  private final List<Duration> failovers = new ArrayList<>();
  private final AtomicInteger kills = new AtomicInteger();

  @Test
  void everyJobFinishesOnceWithinQuotaThroughFaultsKillsAndRestarts() throws Exception {
    System.out.printf(
        "[berth-faults] seed %d (-Dberth.faults.seed=%d to replay the schedule),"
            + " %d Jobs at %.1f/s, fault rate %.3f, chaos every %d s%n",
        SEED, SEED, JOBS, JOBS_PER_SECOND, RATE, CHAOS_SECONDS);
    long started = System.nanoTime();
    List<SimNode> nodes =
        List.of(
            SimNode.gpu("faults-0", SimNode.H100, "zone-a", "rack-0"),
            SimNode.gpu("faults-1", SimNode.H100, "zone-a", "rack-1"),
            SimNode.gpu("faults-2", SimNode.A100, "zone-b", "rack-2"),
            SimNode.gpu("faults-3", SimNode.A100, "zone-b", "rack-3"));
    ChartOperatorPod chart = ChartOperatorPod.render();
    try (ControlPlane plane = ControlPlane.start("faults", nodes)) {
      KubernetesClient admin = plane.client();
      namespaces(admin);
      Path dir = plane.logDir();
      Map<String, Long> limits =
          QUEUES.stream().collect(Collectors.toMap(q -> q, q -> (NOMINAL + BORROWING) * 1000L));
      try (ApiServerReplica api = ApiServerReplica.of(plane.kubeconfig(), dir);
          FaultyApiProxy proxy =
              new FaultyApiProxy(api.kubeconfig(), new FaultSchedule(SEED, RATE));
          WebhookRelay relay = new WebhookRelay();
          KubernetesClient submitter = submitter(admin, plane.kubeconfig());
          InvariantWatcher watcher =
              new InvariantWatcher(
                  admin,
                  NS,
                  limits,
                  QUEUES.size() * NOMINAL * 1000L,
                  QUEUES.stream().collect(Collectors.toMap(q -> q, q -> q)))) {
        Path kubeconfig = dir.resolve("operator-via-proxy.kubeconfig");
        Files.writeString(kubeconfig, proxy.kubeconfig(), StandardCharsets.UTF_8);
        RelayedWebhooks.register(admin, "https://localhost:" + relay.port());
        watcher.start();
        // The proxy reaches the API server with the test's client certificate: that user is the
        // operator's, as the chart's ServiceAccount is.
        String operatorUser = clientCertificateUser(api.kubeconfig());
        List<OperatorProcess> replicas =
            List.of(
                new OperatorProcess("berth-a", kubeconfig, dir, chart, operatorUser),
                new OperatorProcess("berth-b", kubeconfig, dir, chart, operatorUser));
        try {
          for (OperatorProcess replica : replicas) {
            replica.start();
          }
          // The kubelet's part already: on a busy machine a replica's first informer lists can
          // time out, and it exits; it must be started again, or no leader ever comes. And the
          // endpoints controller's: the relay sends to the replicas that are ready.
          await()
              .atMost(Duration.ofMinutes(5))
              .pollInterval(Duration.ofSeconds(1))
              .until(
                  () -> {
                    restartExited(replicas);
                    endpoints(relay, replicas);
                    return leader(admin, replicas) != null && RelayedWebhooks.enforced(admin);
                  });
          queues(admin);
          run(plane, api, proxy, relay, submitter, watcher, replicas);
        } finally {
          replicas.forEach(OperatorProcess::close);
          // Also when the run failed: the line says how far it got.
          String summary = summary(plane, api, proxy, relay, watcher, replicas, started);
          System.out.println(summary);
          Files.writeString(dir.resolve("faults-summary.log"), summary + "\n");
          Files.writeString(
              dir.getParent().resolve("faults-summary.log"),
              summary + "\n",
              StandardOpenOption.CREATE,
              StandardOpenOption.APPEND);
        }
        assertThat(proxy.injected().values().stream().mapToInt(Integer::intValue).sum())
            .as("faults injected")
            .isPositive();
        assertThat(relay.relayed())
            .as("connections of the API server to the webhooks")
            .isPositive();
        assertThat(watcher.violations()).as("invariant violations (seed %d)", SEED).isEmpty();
        assertThat(watcher.disagreements())
            .as("the watcher's streams against etcd (seed %d)", SEED)
            .isEmpty();
        assertThat(unfinished(admin)).as("Jobs not complete (seed %d)", SEED).isEmpty();
        assertThat(watcher.runningJobsChecked()).as("Jobs checked at unsuspension").isEqualTo(JOBS);
        assertThat(watcher.podsChecked())
            .as("pods checked at binding")
            .isGreaterThanOrEqualTo(JOBS);
        assertThat(watcher.releasesChecked())
            .as("quota releases checked against running pods")
            .isGreaterThanOrEqualTo(JOBS);
      }
    }
  }

  /** The relay's endpoints: the webhook ports of the live replicas whose /readyz answers 200. */
  private static void endpoints(WebhookRelay relay, List<OperatorProcess> replicas) {
    relay.endpoints(
        replicas.stream()
            .filter(OperatorProcess::ready)
            .map(OperatorProcess::webhookPort)
            .filter(OptionalInt::isPresent)
            .map(OptionalInt::getAsInt)
            .toList());
  }

  /** A client acting as {@value #SUBMITTER}, bound to cluster-admin: a user, not the operator. */
  private static KubernetesClient submitter(KubernetesClient admin, String kubeconfig) {
    admin
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName(SUBMITTER)
                .endMetadata()
                .withNewRoleRef()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("ClusterRole")
                .withName("cluster-admin")
                .endRoleRef()
                .addNewSubject()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("User")
                .withName(SUBMITTER)
                .endSubject()
                .build())
        .serverSideApply();
    Config config = Config.fromKubeconfig(kubeconfig);
    config.setImpersonateUsername(SUBMITTER);
    config.setImpersonateGroups("system:authenticated");
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /** The CN of the kubeconfig's client certificate: the user the API server knows it as. */
  private static String clientCertificateUser(String kubeconfig) throws Exception {
    Config config = Config.fromKubeconfig(kubeconfig);
    byte[] pem =
        config.getClientCertFile() != null
            ? Files.readAllBytes(Path.of(config.getClientCertFile()))
            : Base64.getDecoder().decode(config.getClientCertData());
    X509Certificate certificate =
        (X509Certificate)
            CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(pem));
    return new LdapName(certificate.getSubjectX500Principal().getName())
        .getRdns().stream()
            .filter(r -> "CN".equalsIgnoreCase(r.getType()))
            .map(r -> r.getValue().toString())
            .findFirst()
            .orElseThrow();
  }

  private void run(
      ControlPlane plane,
      ApiServerReplica api,
      FaultyApiProxy proxy,
      WebhookRelay relay,
      KubernetesClient submitter,
      InvariantWatcher watcher,
      List<OperatorProcess> replicas)
      throws Exception {
    KubernetesClient admin = plane.client();
    Random jobs = new Random(SEED + 1);
    Random chaos = new Random(SEED + 2);
    AtomicInteger submitted = new AtomicInteger();
    ScheduledExecutorService timers = Executors.newScheduledThreadPool(4);
    try {
      Job[] unsent = {null};
      timers.scheduleAtFixedRate(
          () -> {
            int i = submitted.get();
            if (i < JOBS) {
              unsent[0] = unsent[0] != null ? unsent[0] : job(i, jobs);
              try {
                submitter.resource(unsent[0]).create();
              } catch (KubernetesClientException e) {
                // Refused while no replica served the webhooks (failurePolicy Fail): the user
                // submits it again; one that went through unanswered exists already.
                if (e.getCode() != 409) {
                  System.out.printf(
                      "[berth-faults] %s not submitted (%s); again%n",
                      unsent[0].getMetadata().getName(), e.getMessage());
                  return;
                }
              }
              unsent[0] = null;
              submitted.incrementAndGet();
            }
          },
          0,
          (long) (1000 / JOBS_PER_SECOND),
          TimeUnit.MILLISECONDS);
      // The kubelet's part for the operator Pods: one that exited by itself starts again; and
      // the endpoints controller's for the webhooks' Service.
      timers.scheduleWithFixedDelay(() -> restartExited(replicas), 1, 1, TimeUnit.SECONDS);
      timers.scheduleWithFixedDelay(() -> endpoints(relay, replicas), 1, 1, TimeUnit.SECONDS);
      List<Chaos> cycle =
          List.of(
              Chaos.KILL_LEADER,
              Chaos.KILL_ANY_REPLICA,
              Chaos.RESTART_API_SERVER,
              Chaos.KILL_ANY_REPLICA);
      AtomicInteger round = new AtomicInteger();
      // A round acts only on a working cluster: a leader that decides, and Jobs that run; so
      // every fault meets admission under way. The rounds go on until all Jobs are submitted and
      // each kind of chaos has happened at least once.
      var chaosRuns =
          timers.scheduleWithFixedDelay(
              () -> {
                if (submitted.get() >= JOBS && round.get() >= cycle.size()) {
                  return;
                }
                OperatorProcess leader = leader(admin, replicas);
                if (leader == null
                    || leader.admissionCycles() == 0
                    || watcher.runningJobsSeen() == 0
                    || !replicas.stream().allMatch(OperatorProcess::ready)) {
                  return;
                }
                Chaos next = cycle.get(round.getAndIncrement() % cycle.size());
                try {
                  chaos(next, admin, api, replicas, chaos);
                } catch (Exception e) {
                  throw new IllegalStateException(next + " failed", e);
                }
              },
              CHAOS_SECONDS,
              CHAOS_SECONDS,
              TimeUnit.SECONDS);
      Duration submitting = Duration.ofSeconds((long) (JOBS / JOBS_PER_SECOND) + 60);
      await()
          .atMost(submitting.plusMinutes(5))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> submitted.get() >= JOBS && round.get() >= cycle.size() || chaosRuns.isDone());
      // Let a chaos action under way finish; a failed one fails the test with its cause.
      chaosRuns.cancel(false);
      if (chaosRuns.isDone() && !chaosRuns.isCancelled()) {
        chaosRuns.get();
      }
      awaitAllComplete(admin, watcher, replicas);
      awaitWatcher(watcher);
      watcher.finish();
    } finally {
      timers.shutdownNow();
      proxy.stopFaults();
    }
  }

  /**
   * Until the watcher's streams have shown every Job complete and its Workload finished, and every
   * verdict is taken; after a minute the count of {@link InvariantWatcher#finish} says what is
   * missing.
   */
  private static void awaitWatcher(InvariantWatcher watcher) {
    try {
      await()
          .atMost(Duration.ofMinutes(1))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> watcher.caughtUp(JOBS));
    } catch (ConditionTimeoutException e) {
      System.out.println("[berth-faults] the watcher did not catch up within a minute");
    }
  }

  private static void restartExited(List<OperatorProcess> replicas) {
    for (OperatorProcess r : replicas) {
      try {
        r.restartIfExited();
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }

  /**
   * Until every Job has completed; fails when none completes for {@link #STALL}, or all are not
   * done within an overall bound: admission stuck, or Jobs lost.
   */
  private static void awaitAllComplete(
      KubernetesClient admin, InvariantWatcher watcher, List<OperatorProcess> replicas) {
    AtomicInteger left = new AtomicInteger(Integer.MAX_VALUE);
    AtomicLong progressed = new AtomicLong(System.nanoTime());
    Duration bound = Duration.ofMinutes(10).plusSeconds(JOBS);
    try {
      await()
          .atMost(bound)
          .pollInterval(Duration.ofSeconds(2))
          .until(
              () -> {
                int now = unfinished(admin).size();
                if (now < left.getAndSet(now)) {
                  progressed.set(System.nanoTime());
                }
                if (System.nanoTime() - progressed.get() > STALL.toNanos()) {
                  throw new IllegalStateException(
                      "no Job completed for " + STALL.toSeconds() + " s");
                }
                return now == 0;
              });
    } catch (ConditionTimeoutException | IllegalStateException e) {
      List<String> unfinished = unfinished(admin);
      replicas.forEach(OperatorProcess::dump);
      throw new AssertionError(
          unfinished.size()
              + " Jobs not complete (seed "
              + SEED
              + "):\n"
              + StuckJobs.describe(
                  admin,
                  NS,
                  unfinished.stream().limit(10).map(u -> u.substring(0, u.indexOf(' '))).toList())
              + "\nviolations: "
              + watcher.violations()
              + "\nreplica logs (metrics and thread dumps beside them):\n"
              + replicas.stream()
                  .map(OperatorProcess::tail)
                  .collect(Collectors.joining("\n----\n")),
          e);
    }
  }

  private void chaos(
      Chaos action,
      KubernetesClient admin,
      ApiServerReplica api,
      List<OperatorProcess> replicas,
      Random random)
      throws Exception {
    switch (action) {
      case KILL_LEADER -> {
        OperatorProcess leader = leader(admin, replicas);
        if (leader == null) {
          return; // between leaders already (a replica exited by itself): nothing to kill
        }
        kill(leader, admin, replicas, false);
      }
      case KILL_ANY_REPLICA ->
          kill(replicas.get(random.nextInt(replicas.size())), admin, replicas, true);
      case RESTART_API_SERVER -> {
        System.out.println("[berth-faults] SIGKILL of the kube-apiserver behind the proxy");
        api.restart();
      }
    }
  }

  /**
   * SIGKILL; a killed leader's failover lasts until another replica holds the Lease and runs
   * admission cycles. {@code restartAtOnce}: started again at once, as a crashed container is;
   * otherwise only once the other replica took over.
   */
  private void kill(
      OperatorProcess victim,
      KubernetesClient admin,
      List<OperatorProcess> replicas,
      boolean restartAtOnce)
      throws Exception {
    boolean wasLeader = victim == leader(admin, replicas);
    String identity = victim.identity();
    long killed = System.nanoTime();
    victim.kill();
    kills.incrementAndGet();
    System.out.printf(
        "[berth-faults] SIGKILL of %s (%s)%n", identity, wasLeader ? "the leader" : "a standby");
    if (restartAtOnce) {
      victim.start();
    }
    if (wasLeader) {
      try {
        await()
            .atMost(FAILOVER_LIMIT)
            .pollInterval(Duration.ofMillis(200))
            .until(
                () -> {
                  OperatorProcess next = leader(admin, replicas);
                  return next != null && next.admissionCycles() > 0;
                });
      } catch (ConditionTimeoutException e) {
        throw new AssertionError(
            "no replica took over within "
                + FAILOVER_LIMIT.toSeconds()
                + " s of the leader's SIGKILL (seed "
                + SEED
                + ")",
            e);
      }
      Duration failover = Duration.ofNanos(System.nanoTime() - killed);
      synchronized (failovers) {
        failovers.add(failover);
      }
      System.out.printf(
          "[berth-faults] failover after SIGKILL of %s: %d ms, now %s%n",
          identity, failover.toMillis(), holder(admin));
    }
    if (!restartAtOnce) {
      victim.start();
    }
  }

  /** The live replica the Lease names, if any. */
  private static OperatorProcess leader(KubernetesClient admin, List<OperatorProcess> replicas) {
    String holder = holder(admin);
    return replicas.stream()
        .filter(r -> r.alive() && r.identity().equals(holder))
        .findFirst()
        .orElse(null);
  }

  private static String holder(KubernetesClient admin) {
    Lease lease = admin.leases().inNamespace("berth-system").withName("berth-leader").get();
    return lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
  }

  /**
   * Jobs not Complete. Exactly once is the watcher's count of admissions and evictions: the Job
   * controller's {@code succeeded} says nothing about how often the Job was started.
   */
  private static List<String> unfinished(KubernetesClient admin) {
    return admin.batch().v1().jobs().inNamespace(NS).list().getItems().stream()
        .filter(j -> !complete(j))
        .map(
            j ->
                j.getMetadata().getName()
                    + " suspend="
                    + j.getSpec().getSuspend()
                    + " succeeded="
                    + (j.getStatus() == null ? null : j.getStatus().getSucceeded()))
        .toList();
  }

  private static boolean complete(Job job) {
    return job.getStatus() != null
        && job.getStatus().getConditions() != null
        && job.getStatus().getConditions().stream()
            .anyMatch(c -> "Complete".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private String summary(
      ControlPlane plane,
      ApiServerReplica api,
      FaultyApiProxy proxy,
      WebhookRelay relay,
      InvariantWatcher watcher,
      List<OperatorProcess> replicas,
      long started) {
    long worst;
    int measured;
    synchronized (failovers) {
      worst = failovers.stream().mapToLong(Duration::toMillis).max().orElse(0);
      measured = failovers.size();
    }
    int lost =
        JOBS
            - (int)
                plane.client().batch().v1().jobs().inNamespace(NS).list().getItems().stream()
                    .filter(FaultSuiteE2EIT::complete)
                    .count();
    return String.format(
        "[berth-faults] seed=%d jobs=%d faults=%s (of %d requests; %d found the"
            + " API server down) kills=%d selfExits=%d apiServerRestarts=%d failovers=%d"
            + " worstFailoverMs=%d violations=%d lostJobs=%d admissions=%d evictions=%d"
            + " peakCohortMillicpu=%d/%d workloadEvents=%d checked={unsuspensions=%d, pods=%d,"
            + " releases=%d} disagreements=%d workloadGaps=%d webhookConnections=%d"
            + " (%d found no replica) seconds=%d",
        SEED,
        JOBS,
        proxy.injected(),
        proxy.requests(),
        proxy.upstreamDown(),
        kills.get(),
        replicas.stream().mapToInt(OperatorProcess::exitsOnItsOwn).sum(),
        api.restarts(),
        measured,
        worst,
        watcher.violations().size(),
        lost,
        watcher.admissions(),
        watcher.evictions(),
        watcher.peakCohortUsage(),
        QUEUES.size() * NOMINAL * 1000,
        watcher.events(),
        watcher.runningJobsChecked(),
        watcher.podsChecked(),
        watcher.releasesChecked(),
        watcher.disagreements().size(),
        watcher.workloadGaps(),
        relay.relayed(),
        relay.unserved(),
        Duration.ofNanos(System.nanoTime() - started).toSeconds());
  }

  private static void namespaces(KubernetesClient admin) {
    for (String ns : List.of(ChartOperatorPod.NAMESPACE, NS)) {
      admin
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .serverSideApply();
    }
  }

  private static void queues(KubernetesClient admin) {
    ResourceFlavor flavor = new ResourceFlavor();
    flavor.getMetadata().setName(FLAVOR);
    flavor.setSpec(new ResourceFlavorSpec());
    admin.resource(flavor).create();
    priorityClass(admin, "faults-low", 10);
    priorityClass(admin, "faults-high", 1000);
    for (String name : QUEUES) {
      ClusterQueue cq = new ClusterQueue();
      cq.getMetadata().setName(name);
      ClusterQueueSpec spec = new ClusterQueueSpec();
      spec.namespaceSelector = new LabelSelector();
      spec.cohortName = "faults";
      ResourceQuota cpu = new ResourceQuota("cpu", Integer.toString(NOMINAL));
      cpu.borrowingLimit = new Quantity(Integer.toString(BORROWING));
      spec.resourceGroups =
          List.of(
              new ResourceGroup(List.of("cpu"), List.of(new FlavorQuotas(FLAVOR, List.of(cpu)))));
      spec.preemption = new ClusterQueuePreemption();
      spec.preemption.withinClusterQueue = ClusterQueuePreemption.WithinClusterQueue.LowerPriority;
      spec.preemption.reclaimWithinCohort = ClusterQueuePreemption.ReclaimWithinCohort.Any;
      cq.setSpec(spec);
      admin.resource(cq).create();
      LocalQueue lq = new LocalQueue();
      lq.getMetadata().setNamespace(NS);
      lq.getMetadata().setName(name);
      lq.setSpec(new LocalQueueSpec(name));
      admin.resource(lq).create();
    }
  }

  private static void priorityClass(KubernetesClient admin, String name, int value) {
    WorkloadPriorityClass wpc = new WorkloadPriorityClass();
    wpc.getMetadata().setName(name);
    wpc.setValue(value);
    admin.resource(wpc).create();
  }

  /** A suspended one-pod Job of 1 to 3 cpu on a random queue; a quarter of them high priority. */
  private static Job job(int i, Random random) {
    String queue = QUEUES.get(random.nextInt(QUEUES.size()));
    String priority = random.nextInt(4) == 0 ? "faults-high" : "faults-low";
    String cpu = Integer.toString(1 + random.nextInt(3));
    String runFor = (1 + random.nextInt(4)) + "s";
    return new JobBuilder()
        .withNewMetadata()
        .withNamespace(NS)
        .withName(String.format("job-%04d", i))
        .addToLabels(Berth.QUEUE_NAME_LABEL, queue)
        .addToLabels("berth.dev/priority-class", priority)
        .endMetadata()
        .withNewSpec()
        .withSuspend(true)
        .withParallelism(1)
        .withCompletions(1)
        .withBackoffLimit(6)
        .withNewTemplate()
        .withNewMetadata()
        .addToAnnotations(ControlPlane.RUN_FOR, runFor)
        .endMetadata()
        .withNewSpec()
        .withRestartPolicy("Never")
        .addNewContainer()
        .withName("main")
        .withImage("busybox")
        .withNewResources()
        .addToRequests("cpu", new Quantity(cpu))
        .endResources()
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }
}
