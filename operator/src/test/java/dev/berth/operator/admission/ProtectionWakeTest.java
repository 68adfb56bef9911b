package dev.berth.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.AdditionalAnswers.delegatesTo;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.doReturn;
import static org.mockito.Mockito.mock;

import dev.berth.engine.AdmissionEngine;
import dev.berth.engine.CycleResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A preemptor held back by a victim's minimum runtime is looked at again when that runtime ends,
 * though nothing else happens in the cluster: the loop wakes at {@link
 * CycleResult#protectionEndsAt()}. The real loop and engine; only the first cycle's result is made
 * to say that a protection ends shortly (the engine's side is MinimumRuntimeTest's).
 */
class ProtectionWakeTest {
  private final ClusterState state = ClusterStateFaultsTest.cluster();

  @Test
  void aCycleRunsWhenTheFirstMinimumRuntimeEnds() throws Exception {
    AdmissionEngine real = state.engine();
    // Everything but the cycle's result is the real engine's (the loop also samples usage).
    AdmissionEngine engine = mock(AdmissionEngine.class, delegatesTo(real));
    List<Long> cycles = new CopyOnWriteArrayList<>();
    AtomicLong protectionEnds = new AtomicLong(Long.MAX_VALUE);
    doAnswer(
            call -> {
              long now = call.getArgument(0);
              CycleResult result = real.runCycle(now, call.getArgument(1));
              cycles.add(now);
              if (cycles.size() > 1) {
                return result;
              }
              protectionEnds.set(now + 700);
              CycleResult held = mock(CycleResult.class, delegatesTo(result));
              doReturn(protectionEnds.get()).when(held).protectionEndsAt();
              return held;
            })
        .when(engine)
        .runCycle(anyLong(), anyBoolean());
    AdmissionLoop loop = LoopStuckHealthTest.loop(state, engine, System::nanoTime).start();
    try {
      loop.submit(s -> {}).get(10, TimeUnit.SECONDS);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> cycles.stream().anyMatch(at -> at >= protectionEnds.get()));
      assertThat(cycles.get(cycles.size() - 1)).isGreaterThanOrEqualTo(protectionEnds.get());
    } finally {
      loop.close();
    }
  }
}
