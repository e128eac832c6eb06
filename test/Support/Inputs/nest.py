# Writes loom IR whose deepest point nests exactly DEPTH levels, as
# loom/Support/NestingLimit.h counts them, in one of several ways; every one
# is valid IR (with --allow-unregistered-dialect for `region`).
#   usage: nest.py KIND DEPTH
import sys

kind, depth = sys.argv[1], int(sys.argv[2])
n = depth - 1
if kind == "array":  # array attributes inside a dictionary: { [[...]] }
    body = "[" * n + "1" + "]" * n
    print("func.func private @f() attributes {a = %s}" % body)
elif kind == "tuple":  # tuple types in an argument list: ( tuple<...> )
    print("func.func private @f(%s)" % ("tuple<" * n + "i32" + ">" * n))
elif kind == "function":  # function types returning function types
    print("func.func private @f(%s)" % ("() -> (" * n + "i32" + ")" * n))
elif kind == "region":  # ops in regions: two levels per region, ( and {
    regions = (depth - 1) // 2
    print('"t.op"() ({\n' * regions + '"t.leaf"() : () -> ()\n' +
          '}) : () -> ()\n' * regions, end="")
elif kind == "affine-sum":  # one affine expression chaining DEPTH-2 '+'
    print("#m = affine_map<(d0) -> (d0%s)>" % (" + d0" * (depth - 2)))
    print("func.func private @f() attributes {m = #m}")
elif kind == "affine-negate":  # DEPTH-2 negations
    print("#m = affine_map<(d0) -> (%sd0)>" % ("- " * (depth - 2)))
    print("func.func private @f() attributes {m = #m}")
else:
    sys.exit("unknown kind " + kind)
