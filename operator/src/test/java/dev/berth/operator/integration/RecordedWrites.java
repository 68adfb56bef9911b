package dev.berth.operator.integration;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.RETURNS_DEEP_STUBS;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.NamespaceableResource;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.PodResource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A stand-in for the API server's write endpoints, for unit tests of what a lifecycle step writes:
 * every {@code client.resource(object).create()/update()/updateStatus()/delete()} is recorded with
 * the object as it was sent, and answered with that object. Nothing is stored: a step's effect on
 * the real API server (and the event it causes) is the end-to-end suite's to test. The one read it
 * answers are a list of pods by label (eviction counts a Job's pods live): the pods set with {@link
 * #livePods}, whatever the namespace and labels; and a {@code get} of an object (a step checks the
 * stored object before it starts an owner or gives quota back): the version set with {@link
 * #stored}, else the object itself, as when the informer's copy is the latest.
 */
@SuppressWarnings("unchecked") // mocks of the client's generic DSL types
final class RecordedWrites {
  private static final Set<String> VERBS = Set.of("create", "update", "updateStatus", "delete");

  /** One write: the verb and the object sent. */
  record Write(String verb, HasMetadata object) {
    @SuppressWarnings("unchecked")
    <T extends HasMetadata> T as(Class<T> type) {
      return (T) type.cast(object);
    }
  }

  private final List<Write> writes = new ArrayList<>();
  private List<Pod> livePods = List.of();
  private final Map<String, HasMetadata> stored = new HashMap<>();
  private final KubernetesClient client = mock(KubernetesClient.class, RETURNS_DEEP_STUBS);

  RecordedWrites() {
    when(client.resource(any(HasMetadata.class)))
        .thenAnswer(call -> resource(call.getArgument(0, HasMetadata.class)));
    MixedOperation<Pod, PodList, PodResource> pods = mock(MixedOperation.class);
    NonNamespaceOperation<Pod, PodList, PodResource> inNamespace =
        mock(NonNamespaceOperation.class);
    FilterWatchListDeletable<Pod, PodList, PodResource> labelled =
        mock(FilterWatchListDeletable.class);
    when(client.pods()).thenReturn(pods);
    when(pods.inNamespace(any())).thenReturn(inNamespace);
    when(inNamespace.withLabels(any())).thenReturn(labelled);
    when(labelled.list()).thenAnswer(call -> new PodListBuilder().withItems(livePods).build());
  }

  /** The pods a list by label answers with from now on. */
  void livePods(Pod... pods) {
    livePods = List.of(pods);
  }

  /** The version a {@code get} of this object's kind and name answers with from now on. */
  void stored(HasMetadata object) {
    stored.put(key(object), object);
  }

  private static String key(HasMetadata object) {
    return object.getKind() + "/" + object.getMetadata().getName();
  }

  KubernetesClient client() {
    return client;
  }

  private NamespaceableResource<?> resource(HasMetadata object) {
    return mock(
        NamespaceableResource.class,
        call -> {
          String verb = call.getMethod().getName();
          if ("toString".equals(verb)) {
            return "resource(" + object.getMetadata().getName() + ")";
          }
          if ("get".equals(verb) && call.getArguments().length == 0) {
            return stored.getOrDefault(key(object), object);
          }
          if (!VERBS.contains(verb) || call.getArguments().length > 0) {
            throw new UnsupportedOperationException("not a write this stand-in records: " + verb);
          }
          writes.add(new Write(verb, object));
          return "delete".equals(verb) ? List.of() : object;
        });
  }

  /** The writes made since the last call. */
  List<Write> take() {
    List<Write> out = List.copyOf(writes);
    writes.clear();
    return out;
  }
}
