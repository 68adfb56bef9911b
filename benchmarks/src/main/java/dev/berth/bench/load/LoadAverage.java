package dev.berth.bench.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The machine's load average (1, 5, 15 min, from /proc/loadavg), printed beside every figure. */
final class LoadAverage {
  private LoadAverage() {}

  static String now() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }
}
