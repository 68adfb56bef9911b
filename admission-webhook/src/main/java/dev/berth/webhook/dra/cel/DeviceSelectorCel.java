package dev.berth.webhook.dra.cel;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.CelValidationResult;
import dev.cel.common.types.CelType;
import dev.cel.common.types.CelTypeProvider;
import dev.cel.common.types.MapType;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.types.StructType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.Optional;

/**
 * The CEL environment of DRA device selectors, the subset of Kubernetes' that a ResourceFlavor's
 * {@code deviceSelectors} use: one variable, {@code device}, with {@code driver} (string), {@code
 * attributes} (by domain, then name: a string, bool, int or version) and {@code capacity} (by
 * domain, then name: a quantity); Kubernetes' quantity functions ({@code quantity("80Gi")}, {@code
 * isQuantity}, and on a quantity {@code compareTo}, {@code isGreaterThan}, {@code isLessThan},
 * {@code sign}, {@code isInteger}, {@code asInteger}, {@code asApproximateFloat}, {@code add},
 * {@code sub}) and semver functions ({@code semver("1.2.3")}, {@code isSemver}, {@code major},
 * {@code minor}, {@code patch}, {@code compareTo}, {@code isGreaterThan}, {@code isLessThan}). As
 * in Kubernetes a quantity has no {@code <}/{@code >=} operators: {@code
 * device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("80Gi")) >= 0}. The expression must
 * be a bool. An expression that fails on a device (a name the device lacks) selects it not: in
 * Kubernetes the error aborts the claim's allocation, so no such device is allocated either.
 */
public final class DeviceSelectorCel {
  static final CelType QUANTITY = OpaqueType.create("kubernetes.Quantity");
  static final CelType SEMVER = OpaqueType.create("kubernetes.Semver");
  private static final String DEVICE_TYPE = "kubernetes.DRADevice";
  private static final Map<String, CelType> DEVICE_FIELDS =
      Map.of(
          "driver",
          SimpleType.STRING,
          "attributes",
          MapType.create(SimpleType.STRING, MapType.create(SimpleType.STRING, SimpleType.DYN)),
          "capacity",
          MapType.create(SimpleType.STRING, MapType.create(SimpleType.STRING, QUANTITY)),
          "allowMultipleAllocations",
          SimpleType.BOOL);
  private static final StructType DEVICE =
      StructType.create(
          DEVICE_TYPE,
          ImmutableSet.copyOf(DEVICE_FIELDS.keySet()),
          field -> Optional.ofNullable(DEVICE_FIELDS.get(field)));

  private static final CelCompiler COMPILER =
      CelCompilerFactory.standardCelCompilerBuilder()
          .setTypeProvider(
              new CelTypeProvider() {
                @Override
                public ImmutableList<CelType> types() {
                  return ImmutableList.of(DEVICE, QUANTITY, SEMVER);
                }

                @Override
                public Optional<CelType> findType(String typeName) {
                  return types().stream().filter(t -> t.name().equals(typeName)).findFirst();
                }
              })
          .addVar("device", DEVICE)
          .addFunctionDeclarations(declarations())
          .setResultType(SimpleType.BOOL)
          .build();

  private static final CelRuntime RUNTIME =
      CelRuntimeFactory.standardCelRuntimeBuilder().addFunctionBindings(bindings()).build();

  private DeviceSelectorCel() {}

  /** One compiled expression. Thread-safe. */
  public static final class Selector {
    private final String expression;
    private final CelRuntime.Program program;

    private Selector(String expression, CelRuntime.Program program) {
      this.expression = expression;
      this.program = program;
    }

    public String expression() {
      return expression;
    }

    /** Whether the expression is true for the device; false when it fails on it. */
    public boolean selects(DraDevice device) {
      try {
        return Boolean.TRUE.equals(program.eval(Map.of("device", device.celValue())));
      } catch (CelEvaluationException | RuntimeException e) {
        return false;
      }
    }
  }

  /** Why the expression does not compile in this environment, or empty when it does. */
  public static Optional<String> problem(String expression) {
    CelValidationResult result = COMPILER.compile(expression);
    return result.hasError() ? Optional.of(result.getErrorString()) : Optional.empty();
  }

  /** Distinct expressions kept compiled: flavors' and DeviceClasses' selectors are a few dozen. */
  private static final int CACHED = 1024;

  /** Expression to its compiled selector, or to why it does not compile (a String). */
  private static final Map<String, Object> CACHE =
      java.util.Collections.synchronizedMap(
          new java.util.LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Object> eldest) {
              return size() > CACHED;
            }
          });

  /**
   * As {@link #compile}, once per distinct expression: the same expression is read again on every
   * change of a flavor, a DeviceClass or a slice, and compiling is what costs.
   */
  public static Selector compiled(String expression) {
    Object held = CACHE.get(expression);
    if (held == null) {
      try {
        held = compile(expression);
      } catch (IllegalArgumentException e) {
        held = e.getMessage() == null ? "does not compile" : e.getMessage();
      }
      CACHE.put(expression, held);
    }
    if (held instanceof Selector selector) {
      return selector;
    }
    throw new IllegalArgumentException((String) held);
  }

  /** The compiled expression; {@link IllegalArgumentException} when it does not compile. */
  public static Selector compile(String expression) {
    CelValidationResult result = COMPILER.compile(expression);
    if (result.hasError()) {
      throw new IllegalArgumentException(result.getErrorString());
    }
    try {
      CelAbstractSyntaxTree ast = result.getAst();
      return new Selector(expression, RUNTIME.createProgram(ast));
    } catch (dev.cel.common.CelValidationException | CelEvaluationException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  private static ImmutableList<CelFunctionDecl> declarations() {
    return ImmutableList.of(
        global("quantity", "quantity_string", QUANTITY, SimpleType.STRING),
        global("isQuantity", "is_quantity_string", SimpleType.BOOL, SimpleType.STRING),
        member("sign", "quantity_sign", SimpleType.INT, QUANTITY),
        member("isInteger", "quantity_is_integer", SimpleType.BOOL, QUANTITY),
        member("asInteger", "quantity_as_integer", SimpleType.INT, QUANTITY),
        member("asApproximateFloat", "quantity_as_float", SimpleType.DOUBLE, QUANTITY),
        CelFunctionDecl.newFunctionDeclaration(
            "add",
            CelOverloadDecl.newMemberOverload("quantity_add", QUANTITY, QUANTITY, QUANTITY),
            CelOverloadDecl.newMemberOverload(
                "quantity_add_int", QUANTITY, QUANTITY, SimpleType.INT)),
        CelFunctionDecl.newFunctionDeclaration(
            "sub",
            CelOverloadDecl.newMemberOverload("quantity_sub", QUANTITY, QUANTITY, QUANTITY),
            CelOverloadDecl.newMemberOverload(
                "quantity_sub_int", QUANTITY, QUANTITY, SimpleType.INT)),
        CelFunctionDecl.newFunctionDeclaration(
            "compareTo",
            CelOverloadDecl.newMemberOverload(
                "quantity_compare_to", SimpleType.INT, QUANTITY, QUANTITY),
            CelOverloadDecl.newMemberOverload("semver_compare_to", SimpleType.INT, SEMVER, SEMVER)),
        CelFunctionDecl.newFunctionDeclaration(
            "isGreaterThan",
            CelOverloadDecl.newMemberOverload(
                "quantity_is_greater_than", SimpleType.BOOL, QUANTITY, QUANTITY),
            CelOverloadDecl.newMemberOverload(
                "semver_is_greater_than", SimpleType.BOOL, SEMVER, SEMVER)),
        CelFunctionDecl.newFunctionDeclaration(
            "isLessThan",
            CelOverloadDecl.newMemberOverload(
                "quantity_is_less_than", SimpleType.BOOL, QUANTITY, QUANTITY),
            CelOverloadDecl.newMemberOverload(
                "semver_is_less_than", SimpleType.BOOL, SEMVER, SEMVER)),
        global("semver", "semver_string", SEMVER, SimpleType.STRING),
        global("isSemver", "is_semver_string", SimpleType.BOOL, SimpleType.STRING),
        member("major", "semver_major", SimpleType.INT, SEMVER),
        member("minor", "semver_minor", SimpleType.INT, SEMVER),
        member("patch", "semver_patch", SimpleType.INT, SEMVER));
  }

  private static CelFunctionDecl global(String name, String id, CelType result, CelType arg) {
    return CelFunctionDecl.newFunctionDeclaration(
        name, CelOverloadDecl.newGlobalOverload(id, result, arg));
  }

  private static CelFunctionDecl member(String name, String id, CelType result, CelType self) {
    return CelFunctionDecl.newFunctionDeclaration(
        name, CelOverloadDecl.newMemberOverload(id, result, self));
  }

  private static ImmutableList<CelFunctionBinding> bindings() {
    return ImmutableList.of(
        CelFunctionBinding.from("quantity_string", String.class, CelQuantity::of),
        CelFunctionBinding.from(
            "is_quantity_string", String.class, s -> CelQuantity.parse(s).isPresent()),
        CelFunctionBinding.from(
            "quantity_sign", CelQuantity.class, q -> (long) q.amount().signum()),
        CelFunctionBinding.from(
            "quantity_is_integer", CelQuantity.class, DeviceSelectorCel::isInteger),
        CelFunctionBinding.from(
            "quantity_as_integer", CelQuantity.class, DeviceSelectorCel::asInteger),
        CelFunctionBinding.from(
            "quantity_as_float", CelQuantity.class, q -> q.amount().doubleValue()),
        CelFunctionBinding.from(
            "quantity_add",
            CelQuantity.class,
            CelQuantity.class,
            (a, b) -> CelQuantity.of(a.amount().add(b.amount()))),
        CelFunctionBinding.from(
            "quantity_add_int",
            CelQuantity.class,
            Long.class,
            (a, b) -> CelQuantity.of(a.amount().add(BigDecimal.valueOf(b)))),
        CelFunctionBinding.from(
            "quantity_sub",
            CelQuantity.class,
            CelQuantity.class,
            (a, b) -> CelQuantity.of(a.amount().subtract(b.amount()))),
        CelFunctionBinding.from(
            "quantity_sub_int",
            CelQuantity.class,
            Long.class,
            (a, b) -> CelQuantity.of(a.amount().subtract(BigDecimal.valueOf(b)))),
        CelFunctionBinding.from(
            "quantity_compare_to",
            CelQuantity.class,
            CelQuantity.class,
            (a, b) -> (long) Integer.signum(a.compareTo(b))),
        CelFunctionBinding.from(
            "quantity_is_greater_than",
            CelQuantity.class,
            CelQuantity.class,
            (a, b) -> a.compareTo(b) > 0),
        CelFunctionBinding.from(
            "quantity_is_less_than",
            CelQuantity.class,
            CelQuantity.class,
            (a, b) -> a.compareTo(b) < 0),
        CelFunctionBinding.from("semver_string", String.class, CelSemver::of),
        CelFunctionBinding.from(
            "is_semver_string", String.class, s -> CelSemver.parse(s).isPresent()),
        CelFunctionBinding.from("semver_major", CelSemver.class, CelSemver::major),
        CelFunctionBinding.from("semver_minor", CelSemver.class, CelSemver::minor),
        CelFunctionBinding.from("semver_patch", CelSemver.class, CelSemver::patch),
        CelFunctionBinding.from(
            "semver_compare_to",
            CelSemver.class,
            CelSemver.class,
            (a, b) -> (long) Integer.signum(a.compareTo(b))),
        CelFunctionBinding.from(
            "semver_is_greater_than",
            CelSemver.class,
            CelSemver.class,
            (a, b) -> a.compareTo(b) > 0),
        CelFunctionBinding.from(
            "semver_is_less_than", CelSemver.class, CelSemver.class, (a, b) -> a.compareTo(b) < 0));
  }

  private static boolean isInteger(CelQuantity q) {
    BigDecimal a = q.amount();
    return a.signum() == 0
        || (a.stripTrailingZeros().scale() <= 0
            && a.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0
            && a.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) >= 0);
  }

  /** An error (as in Kubernetes) when the quantity is not an int64. */
  private static long asInteger(CelQuantity q) {
    if (!isInteger(q)) {
      throw new IllegalArgumentException("cannot convert value to integer: " + q);
    }
    return q.amount().setScale(0, RoundingMode.UNNECESSARY).longValueExact();
  }
}
