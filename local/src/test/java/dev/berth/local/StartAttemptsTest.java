package dev.berth.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class StartAttemptsTest {
  private final List<String> heard = new ArrayList<>();

  @Test
  void aTryThatFailsIsFollowedByAnotherAndTheFirstStartWins() {
    AtomicInteger tries = new AtomicInteger();
    String started =
        new StartAttempts<String>("etcd", 3, heard::add)
            .start(
                () -> {
                  if (tries.incrementAndGet() == 1) {
                    throw new IllegalStateException("Kube API Server did not start properly");
                  }
                  return "server " + tries.get();
                },
                () -> "context");

    assertThat(started).isEqualTo("server 2");
    assertThat(tries).hasValue(2);
    assertThat(heard)
        .containsExactly("etcd: try 1 of 3 failed (Kube API Server did not start properly)");
  }

  @Test
  void whenEveryTryFailsTheErrorNamesEachAndTheContext() {
    AtomicInteger tries = new AtomicInteger();
    assertThatThrownBy(
            () ->
                new StartAttempts<String>("kube-apiserver", 3, heard::add)
                    .start(
                        () -> {
                          throw new IllegalStateException("failure " + tries.incrementAndGet());
                        },
                        () -> "12 MiB free in /tmp"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "cannot start kube-apiserver in 3 tries: try 1: failure 1; try 2: failure 2;"
                + " try 3: failure 3 [12 MiB free in /tmp]")
        .hasCauseInstanceOf(IllegalStateException.class)
        .satisfies(e -> assertThat(e.getSuppressed()).hasSize(2));
    assertThat(tries).hasValue(3);
    assertThat(heard).hasSize(2);
  }

  @Test
  void oneTryIsTriedOnceAndAtLeastOneIsRequired() {
    AtomicInteger tries = new AtomicInteger();
    assertThatThrownBy(
            () ->
                new StartAttempts<String>("etcd", 1, heard::add)
                    .start(
                        () -> {
                          tries.incrementAndGet();
                          throw new IllegalStateException("no binaries");
                        },
                        () -> "c"))
        .hasMessage("cannot start etcd in 1 try: try 1: no binaries [c]");
    assertThat(tries).hasValue(1);
    assertThat(heard).isEmpty();
    assertThatThrownBy(() -> new StartAttempts<String>("etcd", 0, heard::add))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
