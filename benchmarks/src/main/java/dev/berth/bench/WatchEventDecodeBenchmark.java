package dev.berth.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.berth.api.v1beta1.Workload;
import dev.berth.operator.Clients;
import dev.berth.operator.kube.InternedStrings;
import dev.berth.operator.kube.WatchEventDecoder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The cost of decoding one Workload watch event into a Workload, as the operator's informers get
 * it: the event of an admitted Workload of the baseline load, with the managedFields three writers
 * leave on it (about 4 KB of JSON).
 *
 * <ul>
 *   <li>{@code fabric8}: fabric8's default decoding of a kind it has no class for: the object into
 *       a JSON tree, the tree into a GenericKubernetesResource, then converted to a Workload (what
 *       its watch manager does for an unregistered kind);
 *   <li>{@code previous}: as {@code fabric8}, strings interned: the operator before 6 December;
 *   <li>{@code registered}: the kind registered: the object into a tree, the tree into a Workload;
 *   <li>{@code interned}: as {@code registered}, strings interned ({@code InternedStrings});
 *   <li>{@code onePass}: the object decoded in one pass ({@code WatchEventDecoder}), strings
 *       interned: the operator from 6 to 7 December;
 *   <li>{@code operator}: the operator's client ({@code Clients.serialization}): as {@code
 *       onePass}, and managedFields skipped as they are read ({@code SkipManagedFields}).
 * </ul>
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar WatchEventDecodeBenchmark -f 1 -wi 3 -i 5
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
public class WatchEventDecodeBenchmark {
  static final String EVENT =
      """
      {"type":"MODIFIED","object":{"apiVersion":"berth.dev/v1beta1","kind":"Workload",
       "metadata":{"creationTimestamp":"2026-12-06T03:11:40Z","generation":1,
        "labels":{"berth.dev/class":"medium"},
        "managedFields":[
         {"apiVersion":"berth.dev/v1beta1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":
          {"f:labels":{".":{},"f:berth.dev/class":{}}},"f:spec":{".":{},"f:active":{},
          "f:podSets":{},"f:priority":{},"f:queueName":{}}},
          "manager":"fabric8-kubernetes-client","operation":"Update","time":"2026-12-06T03:11:40Z"},
         {"apiVersion":"berth.dev/v1beta1","fieldsType":"FieldsV1","fieldsV1":{"f:status":
          {".":{},"f:admission":{".":{},"f:clusterQueue":{},"f:podSetAssignments":{}},
          "f:conditions":{}}},"manager":"berth-operator","operation":"Update",
          "subresource":"status","time":"2026-12-06T03:12:31Z"},
         {"apiVersion":"berth.dev/v1beta1","fieldsType":"FieldsV1","fieldsV1":{"f:status":
          {"f:conditions":{}}},"manager":"scheduler-load-runner","operation":"Update",
          "subresource":"status","time":"2026-12-06T03:12:32Z"}],
        "name":"medium-1042","namespace":"ns-2-3","resourceVersion":"184467",
        "uid":"5b0d3f7e-8a41-4c2e-9d7e-2f1a6c0b9e42"},
       "spec":{"active":true,"podSets":[{"count":1,"name":"main","template":{"metadata":{},
        "spec":{"containers":[{"image":"registry.k8s.io/pause:3.10","name":"main",
        "resources":{"requests":{"cpu":"5"}}}],"restartPolicy":"Never"}}}],
        "priority":100,"queueName":"lq-2-3"},
       "status":{"admission":{"clusterQueue":"cq-2-3","podSetAssignments":[{"count":1,
        "flavors":{"cpu":"default"},"name":"main","resourceUsage":{"cpu":"5"}}]},
        "conditions":[
         {"lastTransitionTime":"2026-12-06T03:12:31Z","message":"Quota reserved in ClusterQueue cq-2-3",
          "observedGeneration":1,"reason":"QuotaReserved","status":"True","type":"QuotaReserved"},
         {"lastTransitionTime":"2026-12-06T03:12:31Z","message":"The workload is admitted",
          "observedGeneration":1,"reason":"Admitted","status":"True","type":"Admitted"},
         {"lastTransitionTime":"2026-12-06T03:12:32Z","message":"finished after 500 ms",
          "reason":"Succeeded","status":"True","type":"Finished"}]}}}
      """;

  @Param({"fabric8", "previous", "registered", "interned", "onePass", "operator"})
  public String decoding;

  private KubernetesSerialization serialization;
  private boolean convert;

  @Setup
  public void setUp() {
    switch (decoding) {
      case "fabric8" -> {
        serialization = new KubernetesSerialization();
        convert = true;
      }
      case "previous" -> {
        serialization = InternedStrings.serialization();
        convert = true;
      }
      case "registered" -> serialization = Clients.withKinds(new KubernetesSerialization());
      case "interned" -> serialization = Clients.withKinds(InternedStrings.serialization());
      case "onePass" -> serialization = onePass();
      case "operator" -> serialization = Clients.serialization();
      default -> throw new IllegalArgumentException(decoding);
    }
    Workload w = decode();
    if (!"lq-2-3".equals(w.getSpec().queueName)
        || !"cq-2-3".equals(w.getStatus().admission.clusterQueue)) {
      throw new IllegalStateException(decoding + " decoded something else: " + w);
    }
  }

  /** {@code Clients.serialization} without {@code SkipManagedFields}. */
  private static KubernetesSerialization onePass() {
    AtomicReference<KubernetesSerialization> built = new AtomicReference<>();
    ObjectMapper mapper =
        new ObjectMapper()
            .registerModule(InternedStrings.module())
            .registerModule(
                WatchEventDecoder.module(
                    (apiVersion, kind) ->
                        built.get().getRegisteredKubernetesResource(apiVersion, kind)));
    built.set(new KubernetesSerialization(mapper, true));
    return Clients.withKinds(built.get());
  }

  @Benchmark
  public Workload decode() {
    Object object = serialization.unmarshal(EVENT, WatchEvent.class).getObject();
    if (convert) {
      return serialization.convertValue((HasMetadata) object, Workload.class);
    }
    return (Workload) object;
  }
}
