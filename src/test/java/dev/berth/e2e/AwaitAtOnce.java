package dev.berth.e2e;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Every await of the suite tries its condition at once. Awaitility's default waits one poll
 * interval before the first try (100 ms, or the interval an await sets), although most conditions
 * of an end-to-end test already hold when they are first asked, or are asked in a loop over many
 * objects: applying Kueue's example corpus one document at a time spent over a minute only waiting
 * for first tries. Registered for the whole suite through {@code
 * META-INF/services/org.junit.platform.launcher.LauncherSessionListener}, so no test can forget it;
 * an await that needs a delay before its first try still sets its own {@code pollDelay}.
 */
public final class AwaitAtOnce implements LauncherSessionListener {
  @Override
  public void launcherSessionOpened(LauncherSession session) {
    Awaitility.setDefaultPollDelay(Duration.ZERO);
  }
}
