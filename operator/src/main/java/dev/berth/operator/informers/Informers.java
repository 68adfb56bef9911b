package dev.berth.operator.informers;

/** How the reconcilers' informers list. */
public final class Informers {
  private Informers() {}

  /**
   * Objects per page of an informer's list, so that a first list of 50,000 Workloads is a hundred
   * bounded requests rather than one response the API server and the operator must hold whole
   * (client-go's reflectors page by 500 too).
   *
   * <p>Every informer sets it, also where pages do not matter, because it also decides how fresh
   * the first list is: without a limit fabric8's reflector lists with {@code resourceVersion=0},
   * which the API server answers from its watch cache however far that lags etcd (with several API
   * servers, each its own). With a limit it lists with no resourceVersion: the latest, as etcd has
   * it. {@code LeanInformersTest} holds it. Staleness of a cache is not what keeps quota safe,
   * though: the steps that spend or give back quota read the stored objects first (see {@code
   * WorkloadLifecycle}).
   */
  public static final long LIST_LIMIT = 500;
}
