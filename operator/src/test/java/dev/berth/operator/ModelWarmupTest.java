package dev.berth.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaParameterizedType;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import java.util.List;
import org.junit.jupiter.api.Test;

class ModelWarmupTest {

  /** A kind a reconciler watches but the warm-up forgets is first parsed on an event loop. */
  @Test
  void warmsTheKindOfEveryReconciler() {
    List<String> reconciled =
        new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.berth.operator")
                .stream()
                .flatMap(c -> c.getInterfaces().stream())
                .filter(i -> i.toErasure().isEquivalentTo(Reconciler.class))
                .map(i -> ((JavaParameterizedType) i).getActualTypeArguments().get(0))
                .map(JavaType::toErasure)
                .map(JavaClass::getName)
                .distinct()
                .toList();
    assertThat(reconciled).hasSizeGreaterThan(10);
    assertThat(ModelWarmup.kinds().stream().map(Class::getName)).containsAll(reconciled);
  }

  @Test
  void buildsEveryReaderWithTheClientsSerialization() {
    // No request is made: building the readers needs only the client's serialization.
    try (KubernetesClient client = new KubernetesClientBuilder().build()) {
      ModelWarmup.warm(client);
    }
  }
}
