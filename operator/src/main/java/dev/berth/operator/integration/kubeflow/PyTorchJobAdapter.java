package dev.berth.operator.integration.kubeflow;

import dev.berth.webhook.integration.Framework;

/** A PyTorchJob: podSets {@code master} and {@code worker} ({@link KubeflowJobAdapter}). */
public final class PyTorchJobAdapter extends KubeflowJobAdapter<PyTorchJob> {
  public PyTorchJobAdapter() {
    super(Framework.PYTORCHJOB, "pytorchjob-controller");
  }
}
