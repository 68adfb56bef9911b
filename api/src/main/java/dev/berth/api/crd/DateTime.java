package dev.berth.api.crd;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A string that holds an RFC 3339 time (format {@code date-time}, as metav1.Time): the API server
 * refuses anything else, and tools that read the field know it is a time. {@link CrdFinisher}
 * writes the format.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface DateTime {}
