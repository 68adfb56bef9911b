package dev.berth.api.crd;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * x-kubernetes-list-type for a list: {@code set} (unique scalars) or {@code map} (items unique by
 * {@link #keys()}, which become required). The API server then refuses duplicates itself, at no CEL
 * cost, and server-side apply merges the items by key.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface ListType {
  String value();

  String[] keys() default {};
}
