package dev.berth.operator.capacity;

import dev.berth.operator.admission.AdmissionLoop;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Watches ResourceSlices and DeviceClasses (resource.k8s.io/v1) for the DRA devices flavors'
 * capacity counts, and hands every change to the admission loop's thread, where the {@link
 * CapacityObserver} keeps them and the {@link CapacityPublisher} after the cycle the change brings
 * publishes the flavors it moves. Started only when the configuration maps a DeviceClass, so a
 * cluster without DRA pays no watch.
 */
public final class DeviceFeed implements AutoCloseable {
  private final KubernetesClient client;
  private final AdmissionLoop loop;
  private final CapacityObserver observer;
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();

  public DeviceFeed(KubernetesClient client, AdmissionLoop loop, CapacityObserver observer) {
    this.client = client;
    this.loop = loop;
    this.observer = observer;
  }

  /** Lists both kinds (returning once listed) and watches them. */
  public void start() {
    informers.add(
        client
            .resources(DeviceClass.class)
            .inform(handler(observer::deviceClass, observer::deviceClassDeleted)));
    informers.add(
        client
            .resources(ResourceSlice.class)
            .inform(handler(observer::slice, observer::sliceDeleted)));
  }

  private <T extends HasMetadata> ResourceEventHandler<T> handler(
      Consumer<T> stored, Consumer<String> deleted) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T object) {
        loop.submit(state -> stored.accept(object));
      }

      @Override
      public void onUpdate(T before, T object) {
        loop.submit(state -> stored.accept(object));
      }

      @Override
      public void onDelete(T object, boolean finalStateUnknown) {
        String name = object.getMetadata().getName();
        loop.submit(state -> deleted.accept(name));
      }
    };
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::close);
  }
}
