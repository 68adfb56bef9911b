package dev.berth.webhook.validation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.berth.webhook.integration.Framework;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The training operator's v1 jobs (PyTorchJob, MPIJob), read as JSON. Berth makes one podSet per
 * replica type, in the kind's order, so a managed job names only the kind's replica types (the
 * training operator's own webhook, which would refuse another, is not run here), each with a pod
 * template; and it keeps {@code runPolicy.cleanPodPolicy} from being {@code None}: the training
 * operator would leave the pods that still run when the job ends (an MPIJob's workers once its
 * launcher exits, a PyTorchJob's workers once its master does) running on GPUs whose quota the
 * finished Workload has given back.
 */
public final class KubeflowJobValidator {
  private final Framework framework;

  public KubeflowJobValidator(Framework framework) {
    this.framework = framework;
  }

  /**
   * The field holding the replica specs, by replica type: {@code pytorchReplicaSpecs}, {@code
   * mpiReplicaSpecs}.
   */
  public static String replicaSpecsField(Framework framework) {
    return switch (framework) {
      case PYTORCHJOB -> "pytorchReplicaSpecs";
      case MPIJOB -> "mpiReplicaSpecs";
      default -> throw new IllegalArgumentException(framework + " is not a Kubeflow v1 job");
    };
  }

  /** Its replica types in podSet order, as Kueue orders them: Master, Worker; Launcher, Worker. */
  public static List<String> replicaTypes(Framework framework) {
    return switch (framework) {
      case PYTORCHJOB -> List.of("Master", "Worker");
      case MPIJOB -> List.of("Launcher", "Worker");
      default -> throw new IllegalArgumentException(framework + " is not a Kubeflow v1 job");
    };
  }

  /**
   * The pod template of the replica type a pod of the job belongs to (the training operator's
   * {@code training.kubeflow.org/replica-type} label, the type in lower case); empty when none.
   */
  public static Optional<JsonNode> templateOf(Framework framework, JsonNode job, String podType) {
    JsonNode specs = job.path("spec").path(replicaSpecsField(framework));
    for (var it = specs.fieldNames(); podType != null && it.hasNext(); ) {
      String type = it.next();
      if (type.toLowerCase(Locale.ROOT).equals(podType.toLowerCase(Locale.ROOT))) {
        JsonNode template = specs.path(type).path("template");
        return template.isObject() ? Optional.of(template) : Optional.empty();
      }
    }
    return Optional.empty();
  }

  public List<FieldError> validate(JsonNode job) {
    Errors errors = new Errors();
    JobView view = JobView.of(job, framework);
    if (!view.managed()) {
      return errors.toList();
    }
    ManagedJobRules.validateLabels(view, errors);
    String field = replicaSpecsField(framework);
    FieldPath path = FieldPath.root("spec").child(field);
    JsonNode specs = job.path("spec").path(field);
    if (!specs.isObject() || specs.isEmpty()) {
      errors.add(
          FieldError.required(path, "a managed " + framework.kind() + " needs its replica specs"));
    } else {
      List<String> types = replicaTypes(framework);
      List<String> names = new ArrayList<>();
      specs.fieldNames().forEachRemaining(names::add);
      for (String type : names) {
        FieldPath tp = path.key(type);
        if (!types.contains(type)) {
          errors.add(FieldError.notSupported(tp, type, types));
          continue;
        }
        checkReplica(specs.path(type), tp, errors);
      }
    }
    JsonNode clean = job.at("/spec/runPolicy/cleanPodPolicy");
    if ("None".equals(clean.asText())) {
      errors.add(
          FieldError.invalid(
              FieldPath.root("spec").child("runPolicy").child("cleanPodPolicy"),
              "None",
              "the pods of a managed "
                  + framework.kind()
                  + " must stop when it ends, since its quota is given back then: use Running"
                  + " (the default Berth sets) or All"));
    }
    return errors.toList();
  }

  public List<FieldError> validateUpdate(JsonNode old, JsonNode job) {
    Errors errors = new Errors();
    errors.addAll(validate(job));
    ManagedJobRules.validateQueueUnchangedWhileRunning(
        JobView.of(old, framework), JobView.of(job, framework), framework.kind(), errors);
    return errors.toList();
  }

  private static void checkReplica(JsonNode spec, FieldPath path, Errors errors) {
    JsonNode replicas = spec.path("replicas");
    if (replicas.isNumber() && replicas.asInt() < 0) {
      errors.add(
          FieldError.invalid(
              path.child("replicas"), replicas.asInt(), "must be greater than or equal to 0"));
    }
    FieldPath tp = path.child("template");
    if (!spec.path("template").isObject()) {
      errors.add(FieldError.required(tp, "a pod template is required"));
      return;
    }
    PodTemplateSpec pod;
    try {
      pod = Serialization.jsonMapper().treeToValue(spec.path("template"), PodTemplateSpec.class);
    } catch (Exception e) {
      errors.add(FieldError.invalid(tp, "unreadable", "must be a pod template"));
      return;
    }
    PodTemplateRules.validate(pod, tp, errors, replicas.isNumber() ? replicas.asInt() : 1);
  }
}
