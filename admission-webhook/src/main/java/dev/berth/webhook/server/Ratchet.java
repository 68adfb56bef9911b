package dev.berth.webhook.server;

import dev.berth.webhook.validation.FieldError;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * On update, an error the old object already had is not held against the request. An object stored
 * before a rule existed (or while the webhook was down) must still accept the writes that keep it
 * alive: finalizer removal, the Job controller's bookkeeping, a fix of another field. Errors that
 * only updates produce (immutability, starting a Job) are never present on the old object, so they
 * always stand.
 */
final class Ratchet {
  private Ratchet() {}

  static List<FieldError> newErrors(List<FieldError> now, List<FieldError> before) {
    if (before.isEmpty()) {
      return now;
    }
    Set<String> old = new HashSet<>();
    before.forEach(e -> old.add(e.toString()));
    return now.stream().filter(e -> !old.contains(e.toString())).toList();
  }
}
