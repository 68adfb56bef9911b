package dev.berth.e2e.chart;

import dev.berth.webhook.HelmChart;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Runs the real helm binary against the chart in the repository ({@link HelmChart}). */
final class HelmCli {
  static final Path CHART = Repo.root().resolve("helm/berth");

  private HelmCli() {}

  static HelmChart.Result run(String... args) {
    return new HelmChart(Repo.root(), Repo.helm()).run(List.of(args));
  }

  /** helm template for the given release and namespace; fails the test if helm fails. */
  static String template(String release, String namespace, String... extraArgs) {
    List<String> args = new ArrayList<>(List.of("template", release, CHART.toString()));
    args.addAll(List.of("--namespace", namespace));
    args.addAll(List.of(extraArgs));
    HelmChart.Result result = run(args.toArray(String[]::new));
    if (result.exitCode() != 0) {
      throw new AssertionError("helm " + String.join(" ", args) + " failed:\n" + result.output());
    }
    return result.stdout();
  }
}
