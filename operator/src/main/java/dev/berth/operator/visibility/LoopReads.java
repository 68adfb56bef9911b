package dev.berth.operator.visibility;

import dev.berth.operator.admission.AdmissionLoop;
import dev.berth.operator.admission.ClusterView;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Reads the engine on the admission loop's thread, which owns it (the engine is single-threaded),
 * so an answer is never torn by a cycle running at the same time.
 */
final class LoopReads {
  private final AdmissionLoop loop;

  LoopReads(AdmissionLoop loop) {
    this.loop = loop;
  }

  boolean ready() {
    return loop.isBootstrapped();
  }

  /** The read's result, or null when the loop did not answer within 5 s. */
  <T> T read(Function<ClusterView, T> read) {
    CompletableFuture<T> answer = new CompletableFuture<>();
    loop.submit(
        state -> {
          try {
            answer.complete(read.apply(state));
          } catch (RuntimeException e) {
            answer.completeExceptionally(e);
          }
        });
    try {
      return answer.get(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException | TimeoutException e) {
      return null;
    }
  }
}
