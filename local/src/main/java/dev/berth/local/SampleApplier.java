package dev.berth.local;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** Applies every YAML file of a folder in name order, as {@code kubectl apply -f DIR} would. */
final class SampleApplier {
  private final KubernetesClient client;
  private final PrintStream out;
  private final Predicate<HasMetadata> runnable;

  /** Applies only the objects {@code runnable} accepts; says which it skips. */
  SampleApplier(KubernetesClient client, PrintStream out, Predicate<HasMetadata> runnable) {
    this.client = client;
    this.out = out;
    this.runnable = runnable;
  }

  void apply(Path dir) throws IOException {
    List<Path> files;
    try (Stream<Path> list = Files.list(dir)) {
      files =
          list.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
              .sorted()
              .toList();
    }
    for (Path file : files) {
      try (InputStream in = Files.newInputStream(file)) {
        for (HasMetadata object : client.load(in).items()) {
          if (!runnable.test(object)) {
            out.printf("  skipped %-22s %s%n", object.getKind(), name(object));
            continue;
          }
          try {
            client.resource(object).fieldManager("berth-local").forceConflicts().serverSideApply();
            out.printf("  applied %-22s %s%n", object.getKind(), name(object));
          } catch (KubernetesClientException e) {
            out.printf(
                "  REFUSED %-22s %s: %s%n",
                object.getKind(),
                name(object),
                e.getStatus() == null ? e.getMessage() : e.getStatus().getMessage());
          }
        }
      }
    }
  }

  private static String name(HasMetadata object) {
    String ns = object.getMetadata().getNamespace();
    return (ns == null ? "" : ns + "/") + object.getMetadata().getName();
  }
}
