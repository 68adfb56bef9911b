package dev.berth.operator.logging;

import java.io.PrintStream;
import java.time.Clock;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The SLF4J provider of {@code BERTH_LOG_FORMAT=json} ({@link LogFormat#install}): {@link
 * JsonLogger}s on standard error, where slf4j-simple writes the text log, at the levels of {@link
 * LogLevels}. Berth logs no MDC, so none is kept.
 */
public final class JsonLogProvider implements SLF4JServiceProvider {
  private ILoggerFactory loggers;
  private final IMarkerFactory markers = new BasicMarkerFactory();
  private final MDCAdapter mdc = new NOPMDCAdapter();

  /** Loggers at {@code levels}, writing to {@code out} with times from {@code clock}. */
  static ILoggerFactory factory(LogLevels levels, PrintStream out, Clock clock) {
    ConcurrentMap<String, Logger> made = new ConcurrentHashMap<>();
    return name ->
        made.computeIfAbsent(name, n -> new JsonLogger(n, levels.threshold(n), out, clock));
  }

  @Override
  public void initialize() {
    loggers = factory(LogLevels.fromClassPath(), System.err, Clock.systemUTC());
  }

  @Override
  public ILoggerFactory getLoggerFactory() {
    return loggers;
  }

  @Override
  public IMarkerFactory getMarkerFactory() {
    return markers;
  }

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }

  @Override
  public String getRequestedApiVersion() {
    return "2.0.99";
  }
}
