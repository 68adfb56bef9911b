package dev.berth.api.crd;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Bounds on the number of items of a list (minItems/maxItems) or entries of a map
 * (minProperties/maxProperties). crd-generator-apt has no annotation for them; {@link CrdFinisher}
 * writes them. Bounds matter twice: they reject oversized objects, and they let the API server
 * bound the cost of the CEL rules that iterate over the list.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface Items {
  int min() default 0;

  int max();
}
