package dev.berth.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.api.v1beta1.ClusterQueue;
import dev.berth.api.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The version read from a status write's reply: only the top-level metadata's, of the same object,
 * wherever the API server puts its fields; the real API server's replies are read in
 * StatusPutE2EIT.
 */
class StatusPutTest {
  private static String version(String json, String uid) {
    return StatusPut.resourceVersion(json.replace('\'', '"').getBytes(StandardCharsets.UTF_8), uid);
  }

  @Test
  void readsTheVersionAsTheApiServerOrdersMetadata() {
    String reply =
        "{'apiVersion':'berth.dev/v1beta1','kind':'Workload','metadata':{'name':'w',"
            + "'namespace':'team','uid':'u-1','resourceVersion':'4711','generation':1,"
            + "'managedFields':[{'manager':'berth','fieldsV1':{'f:status':{}}}]},"
            + "'spec':{'queueName':'lq'},'status':{}}";
    assertThat(version(reply, "u-1")).isEqualTo("4711");
  }

  @Test
  void findsItAfterNestedObjectsAndInAnyOrder() {
    String reply =
        "{'kind':'Workload','spec':{'metadata':{'resourceVersion':'spec-1'}},"
            + "'metadata':{'managedFields':[{'resourceVersion':'mf'}],'labels':{'uid':'x'},"
            + "'resourceVersion':'12','uid':'u-2'},'status':{'metadata':{'uid':'u-9'}}}";
    assertThat(version(reply, "u-2")).isEqualTo("12");
  }

  @Test
  void noVersionFromAnotherObjectOrAMalformedReply() {
    assertThat(version("{'metadata':{'uid':'other','resourceVersion':'3'}}", "u-1")).isNull();
    assertThat(version("{'metadata':{'resourceVersion':'3','uid':'other'}}", "u-1")).isNull();
    assertThat(version("{'metadata':{'uid':'u-1'}}", "u-1")).isNull();
    assertThat(version("{'metadata':{'uid':'u-1','resourceVersion':3}}", "u-1")).isNull();
    assertThat(version("{'status':{'resourceVersion':'3'}}", "u-1")).isNull();
    assertThat(version("[1,2]", "u-1")).isNull();
    assertThat(version("{'metadata':{'uid':'u-1','resourceVer", "u-1")).isNull();
    assertThat(version("", "u-1")).isNull();
    assertThat(version("{'metadata':{'resourceVersion':'5'}}", null)).isEqualTo("5");
  }

  @Test
  void aStatusWriteSendsMetadataAndStatusWithoutTheSpec() {
    Workload copy =
        dev.berth.testing.Workloads.named("train")
            .in("team")
            .uid("u-1")
            .resourceVersion("42")
            .queue("llm")
            .podSet("main", 2)
            .request("nvidia.com/gpu", "8")
            .admitted("cq", "h100", "2026-12-05T10:00:00Z")
            .build();
    Workload body = StatusWrite.statusOnly(copy);
    String json = io.fabric8.kubernetes.client.utils.Serialization.asJson(body);
    assertThat(json).doesNotContain("\"spec\"").contains("\"resourceVersion\":\"42\"");
    assertThat(body.getMetadata()).isSameAs(copy.getMetadata());
    assertThat(body.getStatus()).isSameAs(copy.getStatus());
    assertThat(copy.getSpec().queueName).as("the copy keeps its spec").isEqualTo("llm");
  }

  @Test
  void statusPathsOfNamespacedAndClusterScopedKinds() {
    Workload wl = new Workload();
    wl.setMetadata(new ObjectMetaBuilder().withName("w-1").withNamespace("team").build());
    assertThat(StatusPut.statusUrl("https://api:6443/", wl))
        .isEqualTo("https://api:6443/apis/berth.dev/v1beta1/namespaces/team/workloads/w-1/status");
    ClusterQueue cq = new ClusterQueue();
    cq.setMetadata(new ObjectMetaBuilder().withName("gpu").build());
    assertThat(StatusPut.statusUrl("https://api:6443", cq))
        .isEqualTo("https://api:6443/apis/berth.dev/v1beta1/clusterqueues/gpu/status");
  }
}
