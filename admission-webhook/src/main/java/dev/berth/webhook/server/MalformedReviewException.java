package dev.berth.webhook.server;

/** The body is not an AdmissionReview v1 request we can answer; the server replies 400. */
public final class MalformedReviewException extends Exception {
  public MalformedReviewException(String message) {
    super(message);
  }
}
