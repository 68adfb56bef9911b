package dev.berth.api.crd;

import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A CEL validation rule (x-kubernetes-validations) on the schema of the annotated class or field.
 * crd-generator-apt 7.5.2 fails on more than one fabric8 {@code @ValidationRule} per element, and
 * most of our types need several, each with its own message; {@link CrdFinisher} writes these.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.FIELD})
@Repeatable(Rule.List.class)
public @interface Rule {
  /** The CEL expression; {@code self} is the annotated value, {@code oldSelf} its previous one. */
  String value();

  /** What {@code kubectl apply} prints, after the field path, when the rule fails. */
  String message();

  /** Several rules on one element. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target({ElementType.TYPE, ElementType.FIELD})
  @interface List {
    Rule[] value();
  }
}
