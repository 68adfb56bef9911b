package dev.berth.e2e;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** What the bypass tests of a workload kind ask of the API server as a team member. */
final class Denials {
  private Denials() {}

  /** Denied by the API server (a webhook's 422), naming every given field. */
  static void assertDenied(ThrowingCallable request, String... fields) {
    var thrown =
        assertThatThrownBy(request)
            .isInstanceOf(KubernetesClientException.class)
            .hasMessageContaining("denied the request");
    for (String field : fields) {
      thrown.hasMessageContaining(field);
    }
  }

  /** A JSON merge patch of {@code object}, sent {@code as} a given client. */
  static void patch(KubernetesClient as, HasMetadata object, String mergePatch) {
    as.resource(object).patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch);
  }
}
