package dev.berth.e2e;

import dev.berth.engine.usage.Run;
import dev.berth.engine.usage.UsageOwner;
import dev.berth.engine.usage.UsageRequest;
import dev.berth.operator.usage.UsageRecorder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Ended runs as the usage recorder hands them to a UsageReport writer, for the report tests. */
public final class EndedRuns {
  /** 2025-12-01T01:00Z: a month of its own, whatever the date the test runs. */
  public static final long END = 1_764_547_200_000L + 3_600_000L;

  private EndedRuns() {}

  /** {@code n} one-GPU runs of an hour each in namespace {@code ns}, ended at {@link #END}. */
  public static List<UsageRecorder.Measured> of(String ns, String prefix, int n) {
    List<UsageRecorder.Measured> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String name = prefix + i;
      Run run =
          new Run(
              ns + "-" + name,
              ns + "/" + name,
              new UsageOwner(ns, "lq", "cq", ""),
              END - 3_600_000L,
              END,
              List.of(new UsageRequest("main", "h100", "nvidia.com/gpu", 1)));
      out.add(new UsageRecorder.Measured(run, Map.of()));
    }
    return out;
  }
}
