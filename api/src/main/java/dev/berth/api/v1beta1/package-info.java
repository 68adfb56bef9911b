/**
 * The {@code berth.dev/v1beta1} API: the kinds an admin and a team write, with Kueue's field names
 * so that Kueue YAML ports by changing {@code apiVersion} and the label prefix.
 *
 * <p>Spec and status classes are plain data carriers with public fields: they mirror the YAML one
 * to one, and the CRD schema is generated from them at build time (see {@code CrdFinisher}).
 */
package dev.berth.api.v1beta1;
