package dev.berth.e2e.plane;

import dev.berth.local.KwokNodes;
import dev.berth.operator.admission.PodRequests;
import dev.berth.operator.provisioning.ProvisioningRequest;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodTemplate;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * A <b>stand-in</b> for the cluster autoscaler's ProvisioningRequest support (no cloud to scale
 * here): it watches ProvisioningRequests and answers each as its namespace is told to. Provision
 * creates, per requested pod, a KWOK Node with the PodTemplate's nodeSelector as labels, a taint
 * for each toleration it must tolerate and the pod's GPUs as capacity (so the gang's pods really
 * land on them), then writes Accepted and Provisioned=True; Fail writes Failed=True; Hold answers
 * nothing until {@link #provision} is called. {@link #revoke} writes CapacityRevoked=True and
 * {@link #removeNodes} scales the nodes away. It writes only what the autoscaler writes: the
 * request's status and Nodes.
 */
public final class ClusterAutoscalerStandIn implements AutoCloseable {
  /** How a namespace's requests are answered. */
  public enum Answer {
    PROVISION,
    FAIL,
    HOLD
  }

  /** Label on the Nodes it creates: the request they were made for. */
  public static final String REQUEST_LABEL = "autoscaler.berth.dev/provisioning-request";

  private final KubernetesClient client;
  private final Map<String, Answer> answers = new ConcurrentHashMap<>();
  private final SharedIndexInformer<ProvisioningRequest> informer;

  private ClusterAutoscalerStandIn(KubernetesClient client) {
    this.client = client;
    this.informer =
        client
            .resources(ProvisioningRequest.class)
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(ProvisioningRequest pr) {
                    answer(pr);
                  }

                  @Override
                  public void onUpdate(ProvisioningRequest old, ProvisioningRequest pr) {}

                  @Override
                  public void onDelete(ProvisioningRequest pr, boolean unknown) {}
                });
  }

  public static ClusterAutoscalerStandIn start(KubernetesClient client) {
    return new ClusterAutoscalerStandIn(client);
  }

  /** How new requests in {@code namespace} are answered (HOLD until told otherwise). */
  public void answer(String namespace, Answer answer) {
    answers.put(namespace, answer);
  }

  private void answer(ProvisioningRequest pr) {
    Answer a = answers.getOrDefault(pr.getMetadata().getNamespace(), Answer.HOLD);
    if (pr.getStatus() != null
        && pr.getStatus().conditions != null
        && !pr.getStatus().conditions.isEmpty()) {
      return; // answered already (an informer resync, or before a restart of the stand-in)
    }
    try {
      if (a == Answer.PROVISION) {
        provision(pr.getMetadata().getNamespace(), pr.getMetadata().getName());
      } else if (a == Answer.FAIL) {
        setCondition(
            pr.getMetadata().getNamespace(),
            pr.getMetadata().getName(),
            "Failed",
            "NoCapacity",
            "the stand-in has no spot capacity to give");
      }
    } catch (KubernetesClientException e) {
      System.out.println(
          "[berth-test] ClusterAutoscalerStandIn could not answer "
              + pr.getMetadata().getName()
              + ": "
              + e.getMessage());
    }
  }

  /** Creates the nodes the request asks for, then marks it Provisioned; returns the nodes. */
  public List<String> provision(String namespace, String name) {
    ProvisioningRequest pr =
        client.resources(ProvisioningRequest.class).inNamespace(namespace).withName(name).get();
    List<String> nodes = new ArrayList<>();
    int n = 0;
    for (ProvisioningRequest.PodSet ps : pr.getSpec().podSets) {
      PodTemplate template =
          client.v1().podTemplates().inNamespace(namespace).withName(ps.podTemplateRef.name).get();
      var spec = template.getTemplate().getSpec();
      Map<String, String> labels =
          new HashMap<>(spec.getNodeSelector() == null ? Map.of() : spec.getNodeSelector());
      labels.put(REQUEST_LABEL, shortName(name));
      List<Taint> taints = new ArrayList<>();
      for (Toleration t :
          spec.getTolerations() == null ? List.<Toleration>of() : spec.getTolerations()) {
        if ("Equal".equals(t.getOperator()) && t.getEffect() != null) {
          taints.add(new Taint(t.getEffect(), t.getKey(), null, t.getValue()));
        }
      }
      Map<String, String> devices = new LinkedHashMap<>();
      for (Map.Entry<String, Quantity> r : PodRequests.of(spec).entrySet()) {
        if (r.getKey().contains("/")) {
          devices.put(r.getKey(), r.getValue().toString());
        }
      }
      for (int i = 0; i < ps.count; i++) {
        String nodeName = "as-" + shortName(name) + "-" + n++;
        Node node = KwokNodes.node(nodeName, labels, taints, devices);
        client.resource(node).create();
        nodes.add(nodeName);
      }
    }
    setCondition(namespace, name, "Accepted", "Accepted", "the stand-in accepted the request");
    setCondition(
        namespace,
        name,
        "Provisioned",
        "Provisioned",
        nodes.size() + " nodes created: " + String.join(", ", nodes));
    return nodes;
  }

  /** The autoscaler takes the capacity back (a spot reclaim). */
  public void revoke(String namespace, String name) {
    setCondition(
        namespace,
        name,
        "CapacityRevoked",
        "CapacityRevoked",
        "the stand-in reclaimed the spot nodes");
  }

  /** Scales away the nodes made for the request. */
  public void removeNodes(String name) {
    client.nodes().withLabel(REQUEST_LABEL, shortName(name)).delete();
  }

  /** The names of the nodes made for the request. */
  public List<String> nodes(String name) {
    return client.nodes().withLabel(REQUEST_LABEL, shortName(name)).list().getItems().stream()
        .map(n -> n.getMetadata().getName())
        .toList();
  }

  /** A label value (63 characters at most) that tells requests apart. */
  private static String shortName(String request) {
    return Integer.toHexString(request.hashCode())
        + "-"
        + request.substring(Math.max(0, request.length() - 40)).replaceAll("^[^a-z0-9]+", "");
  }

  private void setCondition(
      String namespace, String name, String type, String reason, String message) {
    update(
        namespace,
        name,
        pr -> {
          if (pr.getStatus() == null) {
            pr.setStatus(new ProvisioningRequest.Status());
          }
          List<Condition> conditions =
              pr.getStatus().conditions == null
                  ? new ArrayList<>()
                  : new ArrayList<>(pr.getStatus().conditions);
          conditions.removeIf(c -> type.equals(c.getType()));
          conditions.add(
              new ConditionBuilder()
                  .withType(type)
                  .withStatus("True")
                  .withReason(reason)
                  .withMessage(message)
                  .withLastTransitionTime(
                      Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString())
                  .build());
          pr.getStatus().conditions = conditions;
          return pr;
        });
  }

  /** Read, change, write the status with the read resourceVersion; a conflict reads again. */
  private void update(String namespace, String name, UnaryOperator<ProvisioningRequest> change) {
    for (int attempt = 1; ; attempt++) {
      ProvisioningRequest pr =
          client.resources(ProvisioningRequest.class).inNamespace(namespace).withName(name).get();
      try {
        client.resource(change.apply(pr)).updateStatus();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 10) {
          throw e;
        }
      }
    }
  }

  @Override
  public void close() {
    informer.close();
  }
}
