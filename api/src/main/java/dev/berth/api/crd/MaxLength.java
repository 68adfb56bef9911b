package dev.berth.api.crd;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The longest a string (or each string of a list) may be. Besides refusing absurd input, it lets
 * the API server bound the cost of CEL rules that compare these strings.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface MaxLength {
  int value();
}
