package dev.berth.bench.webhook;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Other processes that keep cores busy, so a benchmark measures what a loaded machine gives: one
 * shell busy loop per process, niced like nothing (same priority as the benchmark), killed at the
 * end, and by the JVM's shutdown if the benchmark dies first.
 */
final class CpuLoad {
  private CpuLoad() {}

  static List<Process> start(int processes) throws IOException {
    List<Process> started = new ArrayList<>();
    for (int i = 0; i < processes; i++) {
      started.add(new ProcessBuilder("sh", "-c", "while :; do :; done").start());
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(started)));
    return started;
  }

  static void stop(List<Process> processes) {
    processes.forEach(Process::destroyForcibly);
  }
}
