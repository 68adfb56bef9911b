package dev.berth.operator.kube;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Replaces the empty lists and maps of a cached object's fabric8 parts (its metadata, its pod
 * templates) with the one shared immutable empty list or map. fabric8 gives every list field and
 * every model object's {@code additionalProperties} a collection of its own, empty or not: a
 * Workload's pod template alone carried about 27 lists and 14 maps, nearly all empty, 155 MB at
 * 50,000 Workloads, more than the strings (issue 20's large-scale load).
 *
 * <p>Only objects no one changes are given to it: a cached object is shared by every reader, and
 * every write starts from a copy ({@link Copies#deep}, a fresh object with collections of its own).
 * The fields Berth copies by reference into another object it then changes are left as they are: a
 * Workload template's {@code nodeSelector} and {@code tolerations} go into its Job's template when
 * the Job is suspended again, and labels, annotations and finalizers are what Berth's own writes
 * edit.
 */
final class SharedEmpties {
  private SharedEmpties() {}

  private static final String MODEL_PACKAGE = "io.fabric8.kubernetes.api.model";

  /** Fields whose collection may end up in an object Berth changes in place. */
  private static final Set<String> KEPT =
      Set.of("nodeSelector", "tolerations", "labels", "annotations", "finalizers");

  /**
   * A field that can hold a collection or a model, and whether an empty collection in it may be
   * replaced by the shared one: declared as a List or a Map, and not {@link #KEPT}. Worked out once
   * per class: looking the names up for every field of every object read was most of the time this
   * took (issue 20's profile).
   */
  private record Slot(Field field, boolean shareable) {}

  /** Per fabric8 model class, its slots; none for a class outside the model. */
  private static final ClassValue<Slot[]> SLOTS =
      new ClassValue<>() {
        @Override
        protected Slot[] computeValue(Class<?> type) {
          List<Slot> out = new ArrayList<>();
          for (Class<?> c = type; c != null && isModel(c); c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
              Class<?> t = f.getType();
              if (Modifier.isStatic(f.getModifiers())
                  || Modifier.isFinal(f.getModifiers())
                  || t.isPrimitive()
                  || t == String.class
                  || Number.class.isAssignableFrom(t)
                  || t == Boolean.class) {
                continue;
              }
              f.setAccessible(true);
              boolean shareable =
                  !KEPT.contains(f.getName()) && (t == List.class || t == Map.class);
              out.add(new Slot(f, shareable));
            }
          }
          return out.toArray(new Slot[0]);
        }
      };

  private static boolean isModel(Class<?> c) {
    return c.getName().startsWith(MODEL_PACKAGE);
  }

  /** Shares the empty collections of this fabric8 object and of every fabric8 object under it. */
  static void share(Object model) {
    if (model == null) {
      return;
    }
    try {
      for (Slot slot : SLOTS.get(model.getClass())) {
        Field f = slot.field();
        Object value = f.get(model);
        if (value == null) {
          continue;
        }
        if (value instanceof List<?> list) {
          if (list.isEmpty()) {
            if (slot.shareable()) {
              f.set(model, List.of());
            }
          } else {
            each(list);
          }
        } else if (value instanceof Map<?, ?> map) {
          if (map.isEmpty()) {
            if (slot.shareable()) {
              f.set(model, Map.of());
            }
          } else {
            each(map.values());
          }
        } else {
          share(value);
        }
      }
    } catch (IllegalAccessException | RuntimeException e) {
      // Sharing only saves memory: an object it cannot walk is kept as it was read.
    }
  }

  private static void each(Collection<?> values) {
    for (Object v : values) {
      share(v);
    }
  }
}
