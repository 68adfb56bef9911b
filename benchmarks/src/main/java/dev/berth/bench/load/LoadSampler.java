package dev.berth.bench.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The 1-minute load average sampled every few seconds while a run goes, so that a report can say
 * the load it ran at (start, end, lowest and highest), not only the load at one moment: on a shared
 * machine two runs back to back may see very different loads.
 */
final class LoadSampler implements AutoCloseable {
  private final ScheduledExecutorService timer = DaemonTimer.named("load-sampler");
  private final String start = LoadAverage.now();
  private double min = Double.MAX_VALUE;
  private double max = 0;

  private LoadSampler() {}

  static LoadSampler every(int seconds) {
    LoadSampler sampler = new LoadSampler();
    sampler.sample();
    sampler.timer.scheduleAtFixedRate(sampler::sample, seconds, seconds, TimeUnit.SECONDS);
    return sampler;
  }

  private synchronized void sample() {
    try {
      double oneMinute =
          Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0]);
      min = Math.min(min, oneMinute);
      max = Math.max(max, oneMinute);
    } catch (IOException | RuntimeException e) {
      // A missed sample only narrows the range; the start and end figures are still printed.
    }
  }

  /** "load average at start 1 5 15, at end 1 5 15; 1-minute load min .. max". */
  synchronized String summary() {
    sample();
    return String.format(
        Locale.ROOT,
        "load average (1 5 15 min) at start %s, at end %s; 1-minute load %.1f to %.1f",
        start,
        LoadAverage.now(),
        min,
        max);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
