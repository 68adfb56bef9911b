/**
 * Fluent builders of Berth's API objects for tests, after Kueue's {@code pkg/util/testing}
 * wrappers: {@code ClusterQueues.named("team-a").cohort("ai").flavor("h100", gpu("8")).build()}.
 * Shared by the operator's unit tests and the end-to-end suite; only tests depend on this module.
 * Each builder makes one object: {@code build()} returns it, later calls would change it.
 */
package dev.berth.testing;
