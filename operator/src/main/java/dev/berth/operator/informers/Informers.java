package dev.berth.operator.informers;

/** How the reconcilers' informers list. */
public final class Informers {
  private Informers() {}

  /**
   * Objects per page of an informer's list, so that a first list of 50,000 Workloads is a hundred
   * bounded requests rather than one response the API server and the operator must hold whole
   * (client-go's reflectors page by 500 too).
   */
  public static final long LIST_LIMIT = 500;
}
