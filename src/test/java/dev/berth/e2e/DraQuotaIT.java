package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.berth.api.v1beta1.Berth;
import dev.berth.api.v1beta1.Condition;
import dev.berth.api.v1beta1.FlavorResourceCapacity;
import dev.berth.api.v1beta1.ResourceFlavor;
import dev.berth.api.v1beta1.ResourceFlavorStatus;
import dev.berth.api.v1beta1.Workload;
import dev.berth.local.DraDriverStandIn;
import dev.berth.local.EmbeddedApiServer;
import dev.berth.local.LoopbackWebhooks;
import dev.berth.operator.BerthOperator;
import dev.berth.operator.admission.DeviceRequests;
import dev.berth.operator.config.Configuration;
import dev.berth.operator.config.ConfigurationLoader;
import dev.berth.testing.Jobs;
import dev.berth.webhook.WebhookRuntime;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Dynamic Resource Allocation against quota, on a real API server with the chart's webhooks and an
 * operator configured with {@code resources.deviceClassMappings}: a Job whose pods each get a claim
 * of two GPUs from a ResourceClaimTemplate is charged two {@code example.com/gpu} a pod and
 * admitted; the next one waits while the quota is used and is admitted when the first goes; a Job
 * of 4 pods sharing one ResourceClaim of 2 GPUs is charged 2, once. A team member (edit plus the
 * chart's roles) cannot get devices around the queue: a bare Pod with a claim of a mapped class
 * (from a template or a standalone claim), or of a class mapped to no quota resource, a pod added
 * to an admitted Job with one more claim, or one made after the Job's template was made again
 * bigger, is DENIED naming the field. The flavor's capacity counts the devices ResourceSlices
 * publish for its nodes (the test publishes them, standing in for a DRA driver), and a slice
 * withdrawn lowers it below quota (OverCommitted, CapacityShortfall). No DRA driver, scheduler or
 * kubelet runs here: admission needs no allocation, and no pod is started.
 */
class DraQuotaIT {
  private static final String NAMESPACE = "team-dra";
  private static final String MEMBER = "dana";
  private static final String GPU = "example.com/gpu";

  private static final String CONFIG =
      """
      apiVersion: config.berth.dev/v1beta1
      kind: Configuration
      leaderElection: {leaderElect: false}
      metrics: {port: 0}
      webhook: {enable: false}
      visibility: {port: 0}
      resources:
        deviceClassMappings:
        - {name: example.com/gpu, deviceClassNames: [gpu.example.com, h100.example.com]}
      """;

  @Test
  void claimTemplatesAreChargedAndTeamMembersCannotGetDevicesAroundTheQueue() throws IOException {
    Configuration config = ConfigurationLoader.load(CONFIG, Map.of());
    try (EmbeddedApiServer server = EmbeddedApiServer.start()) {
      server.install(EmbeddedApiServer.berthCrds());
      KubernetesClient admin = server.client();
      Namespaces.ensure(admin, "berth-system");
      Namespaces.ensure(admin, NAMESPACE);
      TeamMemberRoles.bind(admin, MEMBER, NAMESPACE);
      try (WebhookRuntime webhooks =
              LoopbackWebhooks.start(
                  admin, "kubeapitest", freePort(), config.resources().mappings());
          KubernetesClient operatorClient =
              new KubernetesClientBuilder()
                  .withConfig(Config.fromKubeconfig(server.kubeconfig()))
                  .build();
          BerthOperator operator = BerthOperator.start(operatorClient, config, () -> {});
          KubernetesClient member = impersonating(server.kubeconfig(), MEMBER)) {
        // The platform team's part: the classes, the queue (4 GPUs), the claim templates.
        for (String deviceClass : List.of("gpu.example.com", "fpga.example.com")) {
          admin
              .resource(
                  new DeviceClassBuilder()
                      .withNewMetadata()
                      .withName(deviceClass)
                      .endMetadata()
                      .withNewSpec()
                      .endSpec()
                      .build())
              .create();
        }
        admin.resource(ScenarioObjects.flavor("dra-gpu", Map.of())).create();
        admin.resource(ScenarioObjects.clusterQueue("dra-cq", "dra-gpu", GPU, "4")).create();
        admin.resource(ScenarioObjects.localQueue(NAMESPACE, "lq", "dra-cq")).create();
        admin.resource(template("two-gpus", "gpu.example.com", 2)).create();
        admin.resource(template("an-fpga", "fpga.example.com", 1)).create();

        // Two pods of two GPUs each: the whole quota.
        member.resource(job("first", 2, "two-gpus")).create();
        Workload first = admittedWorkload(admin, "first");
        assertThat(DeviceRequests.of(first)).isEqualTo(Map.of("main", Map.of(GPU, 2L)));
        assertThat(first.getStatus().admission.podSetAssignments.get(0).resourceUsage.get(GPU))
            .isEqualTo(new Quantity("4"));
        await("first starts")
            .atMost(Duration.ofSeconds(30))
            .until(() -> !suspended(admin, "first"));

        // One more pod of two GPUs does not fit: it waits, suspended.
        member.resource(job("second", 1, "two-gpus")).create();
        await("second's Workload")
            .atMost(Duration.ofSeconds(30))
            .until(() -> workload(admin, "second") != null);
        await("second waits")
            .during(Duration.ofSeconds(3))
            .atMost(Duration.ofSeconds(10))
            .until(
                () ->
                    suspended(admin, "second")
                        && workload(admin, "second").getStatus() != null
                        && workload(admin, "second").getStatus().admission == null);

        // A queued plain Pod (berth.dev/queue-name) is charged its claim's devices too: it waits.
        Pod queued = pod("queued", "two-gpus");
        queued.getMetadata().setLabels(Map.of(Berth.QUEUE_NAME_LABEL, "lq"));
        member.resource(queued).create();
        await("the queued pod's Workload")
            .atMost(Duration.ofSeconds(30))
            .until(() -> workload(admin, "queued") != null);
        assertThat(DeviceRequests.of(workload(admin, "queued")).values())
            .containsExactly(Map.of(GPU, 2L));
        Workload queuedWorkload = workload(admin, "queued");
        assertThat(
                queuedWorkload.getStatus() == null || queuedWorkload.getStatus().admission == null)
            .isTrue();

        // A team member's own pod with a claim of the mapped class: DENIED at the claim.
        assertDenied(
            () -> member.resource(pod("mine", "two-gpus")).create(),
            "spec.resourceClaims[0]",
            "asks for example.com/gpu");
        // A class mapped to no quota resource is never free: DENIED, naming the class's field.
        assertDenied(
            () -> member.resource(pod("fpga", "an-fpga")).create(),
            "spec.resourceClaims[0]",
            "exactly.deviceClassName: DeviceClass \"fpga.example.com\" is mapped to no quota"
                + " resource");
        // A Job of that class gets no Workload and stays suspended, told why.
        member.resource(job("fpga-job", 1, "an-fpga")).create();
        await("the Warning on fpga-job")
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    admin.v1().events().inNamespace(NAMESPACE).list().getItems().stream()
                        .anyMatch(
                            e ->
                                "InvalidWorkload".equals(e.getReason())
                                    && e.getInvolvedObject().getName().equals("fpga-job")
                                    && e.getMessage().contains("fpga.example.com")));
        assertThat(workload(admin, "fpga-job")).isNull();
        assertThat(suspended(admin, "fpga-job")).isTrue();

        // The first Job goes: its devices' quota is released and the second is admitted.
        admin.batch().v1().jobs().inNamespace(NAMESPACE).withName("first").delete();
        admittedWorkload(admin, "second");
        await("second starts")
            .atMost(Duration.ofSeconds(30))
            .until(() -> !suspended(admin, "second"));

        // A ResourceClaim shared by the 4 pods of a Job is one allocation: charged once, 2 GPUs,
        // so it fits a queue of 2 (per pod it would be 8, more than the queue ever has).
        admin.resource(ScenarioObjects.clusterQueue("dra-shared", "dra-gpu", GPU, "2")).create();
        admin.resource(ScenarioObjects.localQueue(NAMESPACE, "shared-lq", "dra-shared")).create();
        member.resource(claim("two-shared", 2)).create();
        Job sharing = job("sharing", 4, "two-shared");
        sharing.getMetadata().setLabels(Map.of(Berth.QUEUE_NAME_LABEL, "shared-lq"));
        sharing
            .getSpec()
            .getTemplate()
            .getSpec()
            .setResourceClaims(
                List.of(
                    new PodResourceClaimBuilder()
                        .withName("devices")
                        .withResourceClaimName("two-shared")
                        .build()));
        member.resource(sharing).create();
        Workload shared = admittedWorkload(admin, "sharing");
        assertThat(DeviceRequests.shared(shared)).isEqualTo(Map.of("main", Map.of(GPU, 2L)));
        assertThat(shared.getStatus().admission.podSetAssignments.get(0).resourceUsage.get(GPU))
            .isEqualTo(new Quantity("2"));
        assertThat(shared.getStatus().admission.podSetAssignments.get(0).count).isEqualTo(4);

        // A standalone claim is no way around the queue: a bare pod naming it is DENIED.
        member.resource(claim("mine", 1)).create();
        assertDenied(
            () -> member.resource(podWithClaim("standalone", "mine")).create(),
            "spec.resourceClaims[0]",
            "asks for example.com/gpu");

        // Nor can a claim be added to the pods of an admitted Job: a pod that claims to be
        // second's, with its template's claim and one more, is DENIED at its owner.
        Job running = admin.batch().v1().jobs().inNamespace(NAMESPACE).withName("second").get();
        Pod extra = ownedBy(pod("extra", "two-gpus"), running);
        extra
            .getSpec()
            .setResourceClaims(
                List.of(
                    extra.getSpec().getResourceClaims().get(0),
                    new PodResourceClaimBuilder()
                        .withName("more")
                        .withResourceClaimName("mine")
                        .build()));
        extra
            .getSpec()
            .getContainers()
            .get(0)
            .getResources()
            .setClaims(
                List.of(
                    containerClaim(),
                    new io.fabric8.kubernetes.api.model.ResourceClaimBuilder()
                        .withName("more")
                        .build()));
        assertDenied(
            () -> member.resource(extra).create(),
            "metadata.ownerReferences[0]",
            "asks for 3 example.com/gpu and the template of Job second");
        // Nor by making the Job's claim template again, bigger: its pods are held to what its
        // Workload was charged when it was created, 2 a pod.
        member.resource(template("two-gpus", "gpu.example.com", 2)).delete();
        await("two-gpus gone")
            .atMost(Duration.ofSeconds(10))
            .until(() -> member.resource(template("two-gpus", "gpu.example.com", 2)).get() == null);
        member.resource(template("two-gpus", "gpu.example.com", 8)).create();
        assertDenied(
            () -> member.resource(ownedBy(pod("bigger", "two-gpus"), running)).create(),
            "metadata.ownerReferences[0]",
            "the pod's claims hold 8 example.com/gpu and its Workload was charged 2 a pod");

        // Capacity: what a driver publishes in ResourceSlices (DraDriverStandIn stands in for one)
        // counts in the flavor's, per mapped resource: 2 + 6 devices hold the 6 GPUs of quota...
        readyNode(admin, "dra-n1");
        readyNode(admin, "dra-n2");
        DraDriverStandIn driver = new DraDriverStandIn(admin);
        driver.publish("dra-n1", 2);
        driver.publish("dra-n2", 6);
        ResourceFlavorStatus published =
            awaitFlavor(admin, s -> "8".equals(devices(s).allocatable));
        assertThat(devices(published).physical).isEqualTo("8");
        assertThat(devices(published).committed).isEqualTo("6");
        assertThat(condition(published, "OverCommitted").status).isEqualTo("False");
        // ...until the driver withdraws dra-n2's slice: 2 left, below what quota promises and
        // what admitted workloads hold.
        driver.withdraw("dra-n2");
        ResourceFlavorStatus withdrawn =
            awaitFlavor(admin, s -> "2".equals(devices(s).allocatable));
        assertThat(devices(withdrawn).physical).isEqualTo("2");
        assertThat(condition(withdrawn, "OverCommitted").status).isEqualTo("True");
        assertThat(condition(withdrawn, "OverCommitted").message).contains(GPU);
        assertThat(condition(withdrawn, "CapacityShortfall").status).isEqualTo("True");
      }
    }
  }

  /** A Ready node as a kubelet would report it, with no resources of its own to publish. */
  private static void readyNode(KubernetesClient admin, String name) {
    admin
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .build())
        .create();
    admin
        .nodes()
        .withName(name)
        .editStatus(
            n -> {
              n.setStatus(
                  new NodeStatusBuilder()
                      .addNewCondition()
                      .withType("Ready")
                      .withStatus("True")
                      .endCondition()
                      .build());
              return n;
            });
    // The API server taints a new node not-ready; the node lifecycle controller (absent here)
    // lifts the taint once the node reports Ready.
    admin
        .nodes()
        .withName(name)
        .edit(
            n -> {
              n.getSpec().setTaints(null);
              return n;
            });
  }

  private static ResourceFlavorStatus awaitFlavor(
      KubernetesClient admin, java.util.function.Predicate<ResourceFlavorStatus> ok) {
    await("flavor dra-gpu's status")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                flavorStatus(admin) != null
                    && devices(flavorStatus(admin)) != null
                    && ok.test(flavorStatus(admin)));
    return flavorStatus(admin);
  }

  private static ResourceFlavorStatus flavorStatus(KubernetesClient admin) {
    return admin.resources(ResourceFlavor.class).withName("dra-gpu").get().getStatus();
  }

  private static FlavorResourceCapacity devices(ResourceFlavorStatus status) {
    return status.resources == null
        ? null
        : status.resources.stream().filter(r -> GPU.equals(r.name)).findFirst().orElse(null);
  }

  private static Condition condition(ResourceFlavorStatus status, String type) {
    return status.conditions.stream().filter(c -> c.type.equals(type)).findFirst().orElseThrow();
  }

  /** {@code pod}, made to look like one the Job controller created for {@code job}. */
  private static Pod ownedBy(Pod pod, Job job) {
    pod.getMetadata().setLabels(job.getSpec().getSelector().getMatchLabels());
    pod.getMetadata()
        .setOwnerReferences(
            List.of(
                new OwnerReferenceBuilder()
                    .withApiVersion("batch/v1")
                    .withKind("Job")
                    .withName(job.getMetadata().getName())
                    .withUid(job.getMetadata().getUid())
                    .withController(true)
                    .build()));
    return pod;
  }

  private static ResourceClaim claim(String name, int count) {
    return new ResourceClaimBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        .endMetadata()
        .withSpec(DraDriverStandIn.claimSpec("gpu.example.com", count))
        .build();
  }

  private static Pod podWithClaim(String name, String claim) {
    Pod pod = pod(name, "unused");
    pod.getSpec()
        .setResourceClaims(
            List.of(
                new PodResourceClaimBuilder()
                    .withName("devices")
                    .withResourceClaimName(claim)
                    .build()));
    return pod;
  }

  private static ResourceClaimTemplate template(String name, String deviceClass, int count) {
    return new ResourceClaimTemplateBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        .endMetadata()
        .withNewSpec()
        .withSpec(DraDriverStandIn.claimSpec(deviceClass, count))
        .endSpec()
        .build();
  }

  private static Job job(String name, int pods, String claimTemplate) {
    Job job = Jobs.named(name).in(NAMESPACE).queue("lq").parallelism(pods).build();
    job.getSpec().setSuspend(null); // the webhook's to set
    var spec = job.getSpec().getTemplate().getSpec();
    spec.setResourceClaims(
        List.of(
            new PodResourceClaimBuilder()
                .withName("devices")
                .withResourceClaimTemplateName(claimTemplate)
                .build()));
    spec.getContainers().get(0).getResources().setClaims(List.of(containerClaim()));
    return job;
  }

  private static io.fabric8.kubernetes.api.model.ResourceClaim containerClaim() {
    return new io.fabric8.kubernetes.api.model.ResourceClaimBuilder().withName("devices").build();
  }

  private static Pod pod(String name, String claimTemplate) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        .endMetadata()
        .withNewSpec()
        .addNewResourceClaim()
        .withName("devices")
        .withResourceClaimTemplateName(claimTemplate)
        .endResourceClaim()
        .addNewContainer()
        .withName("c")
        .withImage("trainer")
        .withNewResources()
        .withClaims(containerClaim())
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  private static void assertDenied(Runnable create, String field, String message) {
    assertThatThrownBy(create::run)
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getMessage()).contains("denied the request");
              assertThat(e.getMessage()).contains(field).contains(message);
            });
  }

  private static Workload workload(KubernetesClient admin, String job) {
    return admin.resources(Workload.class).inNamespace(NAMESPACE).list().getItems().stream()
        .filter(w -> w.getMetadata().getOwnerReferences().get(0).getName().equals(job))
        .findFirst()
        .orElse(null);
  }

  private static Workload admittedWorkload(KubernetesClient admin, String job) {
    await(job + " admitted")
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              Workload wl = workload(admin, job);
              return wl != null && wl.getStatus() != null && wl.getStatus().admission != null;
            });
    return workload(admin, job);
  }

  private static boolean suspended(KubernetesClient admin, String job) {
    return Boolean.TRUE.equals(
        admin
            .batch()
            .v1()
            .jobs()
            .inNamespace(NAMESPACE)
            .withName(job)
            .get()
            .getSpec()
            .getSuspend());
  }

  private static KubernetesClient impersonating(String kubeconfig, String user) {
    Config config = Config.fromKubeconfig(kubeconfig);
    config.setImpersonateUsername(user);
    config.setImpersonateGroups("system:authenticated");
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
