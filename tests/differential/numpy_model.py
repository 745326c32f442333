# SPDX-License-Identifier: Apache-2.0
"""NumPy's side of the differential test: what each operation of a program gives, and how far
chunked's answer may be from it.

Every value is a NumPy array (0-d included) with a tolerance:
  exact  bit for bit (NaN matches NaN; -0.0 matches 0.0), for integer and bool results and for
         the floating operations that IEEE 754 rounds correctly: + - * / % sqrt, comparisons,
         minimum, maximum, abs, casts, and min, max, argmin, argmax, any, all;
  ulp N  within N units in the last place (NaN and infinities exactly), for exp, log, log1p,
         expm1, sin, cos, tan, tanh and float pow. N is 6: NumPy's SIMD and SVML loops are
         documented within 4 ulp of the exact result and glibc's functions within 2 (3 apart
         at most, measured on AVX-512). The runner allows 2 more on a GPU, whose math library
         is documented within 4;
  abs    within a bound per element, for float sum, prod, mean, var and std, whose rounding
         depends on the order of the additions (NumPy adds pairwise, chunked per block). For n
         terms, any order of summation is within (n - 1) u sum|x| of the exact sum (u: the unit
         roundoff of the result type), so two orders are within 2 n u sum|x|; see reduce_tol.

An inexact value is only ever sliced, rechunked or checked, never an operand: rounding errors
that later operations amplify would need bounds of their own.
"""

import numpy as np

if hasattr(np, "_set_promotion_state"):
    # NumPy 1.24 to 1.26 implement NEP 50 (Python scalars never widen an array of their kind)
    # behind this switch; NumPy 2 always does, as chunked does.
    np._set_promotion_state("weak")

DTYPES = ["bool", "int32", "int64", "float32", "float64"]
NP_TYPES = {"bool": np.bool_, "int32": np.int32, "int64": np.int64, "float32": np.float32,
            "float64": np.float64}
MATH_ULP = 6

BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "mod": np.remainder, "eq": np.equal, "ne": np.not_equal, "lt": np.less,
    "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal, "and": np.bitwise_and,
    "or": np.bitwise_or, "xor": np.bitwise_xor, "minimum": np.minimum, "maximum": np.maximum,
    "pow": np.power,
}
BITWISE = {"and", "or", "xor"}
MATH = {"exp", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh"}
UNARY = {
    "neg": np.negative, "not": np.invert, "abs": np.absolute, "sqrt": np.sqrt,
    "isnan": np.isnan, "isfinite": np.isfinite, **{name: getattr(np, name) for name in sorted(MATH)},
}
REDUCE = {"sum": np.sum, "prod": np.prod, "min": np.min, "max": np.max, "mean": np.mean,
          "any": np.any, "all": np.all}


class Val:
    """An array of a program, with the tolerance chunked's value is checked against."""

    def __init__(self, name, arr, kind="exact", tol=None):
        self.name = name
        self.arr = np.asarray(arr)
        self.kind = kind  # "exact", "ulp" or "abs"
        self.tol = None if tol is None else np.asarray(tol)  # per element, the shape of arr

    @property
    def dtype(self):
        return self.arr.dtype.name

    @property
    def exact(self):
        return self.kind == "exact"

    def nonfinite(self):
        return self.arr.dtype.kind == "f" and not np.all(np.isfinite(self.arr))

    def has_nan(self):
        return self.arr.dtype.kind == "f" and bool(np.any(np.isnan(self.arr)))


def unit_roundoff(dtype):
    return float(np.finfo(dtype).eps) / 2


def spacing(arr):
    """The gap to the next float of the same type at each element (0 where not finite)."""
    a = np.abs(np.asarray(arr))
    with np.errstate(all="ignore"):
        s = np.spacing(a.astype(a.dtype)).astype(np.float64)
    return np.where(np.isfinite(s), s, 0.0)


def is_float(dtype):
    return np.dtype(dtype).kind == "f"


def fits(value, dtype):
    """Whether a Python int scalar converts to an integer dtype without overflow (NEP 50)."""
    if np.dtype(dtype).kind not in "iu":
        return True
    info = np.iinfo(dtype)
    return info.min <= value <= info.max


def binary(op, a, b):
    """NumPy's `a op b` for arrays and Python scalars; raises what NumPy raises."""
    with np.errstate(all="ignore"):
        return np.asarray(BINARY[op](a, b))


def unary(op, a):
    with np.errstate(all="ignore"):
        return np.asarray(UNARY[op](a))


def result_type(*operands):
    """The dtype chunked gives where(c, a, b) (NEP 50: Python scalars are weak)."""
    return np.result_type(*operands)


def where(cond, a, b):
    rt = result_type(a, b)
    with np.errstate(all="ignore"):
        return np.asarray(np.where(cond, np.asarray(a).astype(rt), np.asarray(b).astype(rt)))


def clip(x, lo, hi):
    """chunked's clip is minimum(maximum(x, lo), hi), whatever the order of lo and hi."""
    return binary("minimum", binary("maximum", x, lo), hi)


def astype(x, dtype):
    with np.errstate(all="ignore"):
        return np.asarray(x.astype(NP_TYPES[dtype]))


def reduce(op, x, axes, keepdims):
    with np.errstate(all="ignore"):
        return np.asarray(REDUCE[op](x, axis=axes, keepdims=keepdims))


def moment(op, x, axes, ddof, keepdims):
    f = np.var if op == "var" else np.std
    with np.errstate(all="ignore"):
        return np.asarray(f(x, axis=axes, ddof=ddof, keepdims=keepdims))


def arg(op, x, axis):
    f = np.argmin if op == "argmin" else np.argmax
    return np.asarray(f(x, axis=axis)).astype(np.int64)


def reduced_count(shape, axes):
    n = 1
    for a in (range(len(shape)) if axes is None else axes):
        n *= shape[a]
    return n


def reduce_tol(op, x, result, axes, keepdims, ddof=0):
    """Per-element bounds for float sum, prod, mean, var and std (module docstring)."""
    u = unit_roundoff(result.dtype)
    n = reduced_count(x.shape, axes)
    xd = x.astype(np.float64)
    with np.errstate(all="ignore"):
        abs_sum = np.sum(np.abs(xd), axis=axes, keepdims=keepdims)
        if op == "sum":
            tol = 2 * n * u * abs_sum
        elif op == "mean":
            tol = 2 * n * u * abs_sum / max(n, 1) * 2
        elif op == "prod":
            tol = 2 * n * u * np.abs(result.astype(np.float64))
        else:
            # Any way of computing sum (x - mean)^2 (two passes, or merged (count, mean, M2)
            # states) is within a few n u sum x^2 of the exact value.
            sq_sum = np.sum(xd * xd, axis=axes, keepdims=keepdims)
            tol = 4 * (n + 2) * u * sq_sum / max(n - ddof, 1)
            if op == "std":
                # |sqrt(a) - sqrt(b)| <= min(sqrt(|a - b|), |a - b| / (2 sqrt(a))).
                s = np.abs(result.astype(np.float64))
                tol = np.minimum(np.sqrt(tol), np.where(s > 0, tol / (2 * np.where(s > 0, s, 1)), np.inf))
    return np.asarray(tol + 2 * spacing(result), dtype=np.float64)


def scan_tol(op, x, result, axis):
    """Per-element bounds for float cumsum and cumprod: each prefix as a sum (or product) of its
    own count of terms, in whatever order the blocks carry."""
    u = unit_roundoff(result.dtype)
    xd = x.astype(np.float64)
    with np.errstate(all="ignore"):
        n = np.cumsum(np.ones_like(xd), axis=axis)
        if op == "cumsum":
            tol = 2 * n * u * np.cumsum(np.abs(xd), axis=axis)
        else:
            tol = 2 * n * u * np.abs(result.astype(np.float64))
    return np.asarray(tol + 2 * spacing(result), dtype=np.float64)


def prod_is_tame(x):
    """Products whose partial products can neither overflow nor underflow in any order: for
    those, prod is within its rounding bound whatever order the blocks multiply in."""
    a = np.abs(x.astype(np.float64)).ravel()
    a = a[np.isfinite(a) & (a > 0)]
    big = np.sum(np.log2(np.maximum(a, 1.0)))
    small = np.sum(np.log2(np.minimum(a, 1.0)))
    return big < 60 and small > -60


def squares_fit(x):
    """Whether the sum of squares of x stays finite in x's own type, as NumPy computes var."""
    a = np.abs(x.astype(np.float64))
    a = a[np.isfinite(a)]
    return float(np.sum(a * a)) < float(np.finfo(x.dtype).max) / 4


def format_value(v, dtype):
    if dtype == "bool":
        return "1" if v else "0"
    if dtype in ("int32", "int64"):
        return str(int(v))
    return repr(float(v))


def format_scalar(s):
    """A Python scalar operand as the runner reads it: b:1, i:-3, f:2.5."""
    if isinstance(s, bool):
        return "b:" + ("1" if s else "0")
    if isinstance(s, int):
        return "i:" + str(s)
    return "f:" + repr(float(s))


def format_shape(shape):
    return ",".join(str(e) for e in shape) if len(shape) else "-"
