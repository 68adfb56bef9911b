package dev.berth.api.crd;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The columns {@code kubectl get} shows for a kind. crd-generator-apt only derives columns from
 * fields and cannot express JSONPath filters such as a condition's status, so {@link CrdFinisher}
 * writes these into the generated CRD.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface PrinterColumns {
  Column[] value();

  /** One additionalPrinterColumns entry. */
  @interface Column {
    String name();

    String jsonPath();

    String type() default "string";

    String description() default "";

    /** 0 shows the column always; higher priorities only with {@code -o wide}. */
    int priority() default 0;
  }
}
