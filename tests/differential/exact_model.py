# SPDX-License-Identifier: Apache-2.0
"""What ComputeOptions::exact_sums promises for float sums, means, variances, deviations and
cumulative sums (compute_options.hpp), computed with exact rational arithmetic: the differential
test's references when gen_programs.py runs with --exact-sums, checked bit for bit.

- sum: the exact sum correctly rounded (to nearest, ties to even) to the dtype, once;
- mean: that sum rounded to double, divided by the count in double, cast to the dtype;
- var, std: the mean m as above (over the values as doubles), the exact sum of (x - m)^2 (each
  in double) rounded to double, divided by max(count - ddof, 0), its square root for std, cast;
- cumsum: each prefix's exact sum correctly rounded to the dtype;
- a NaN, or +inf with -inf, gives NaN; an infinity gives itself; a sum past the largest finite
  value is an infinity; a zero sum is -0.0 only when every value was -0.0."""

import math
from fractions import Fraction

import numpy as np


def round_fraction(s, dtype):
    """The exact value s correctly rounded to `dtype` (float32 or float64), infinities past the
    largest finite value."""
    info = np.finfo(dtype)
    top = Fraction(2) ** (info.maxexp)  # 2^1024 or 2^128
    half_ulp = Fraction(2) ** (info.maxexp - info.nmant - 2)
    if abs(s) >= top - half_ulp:  # the tie rounds to the even 2^maxexp: an infinity
        return np.array(math.inf if s > 0 else -math.inf, dtype)[()]
    t = np.dtype(dtype).type
    guess = t(float(s))  # float(Fraction) is correctly rounded to double; float32 rounds twice
    best = None
    for c in (np.nextafter(guess, t(-np.inf)), guess, np.nextafter(guess, t(np.inf))):
        if not np.isfinite(c):
            continue
        d = abs(Fraction(float(c)) - s)
        even = int(np.array(c).view(np.int32 if dtype == "float32" else np.int64)) % 2 == 0
        if best is None or d < best[0] or (d == best[0] and even):
            best = (d, c)
    return best[1]


def prefix_sums(values, dtype):
    """The promised sum of each prefix of `values` (finite or not) in `dtype`."""
    out = []
    s, nan, pos, neg, negative_zeros = Fraction(0), False, False, False, True
    for v in (float(x) for x in values):
        nan = nan or math.isnan(v)
        pos, neg = pos or v == math.inf, neg or v == -math.inf
        negative_zeros = negative_zeros and v == 0 and math.copysign(1, v) < 0
        if math.isfinite(v):
            s += Fraction(v)
        if nan or (pos and neg):
            out.append(np.array(math.nan, dtype)[()])
        elif pos or neg:
            out.append(np.array(math.inf if pos else -math.inf, dtype)[()])
        elif s == 0:
            out.append(np.array(-0.0 if negative_zeros else 0.0, dtype)[()])
        else:
            out.append(round_fraction(s, dtype))
    return out


def exact_sum(values, dtype):
    """The promised sum of `values` in `dtype`."""
    sums = prefix_sums(values, dtype)
    return sums[-1] if sums else np.array(0.0, dtype)[()]


def exact_mean(values):
    """The promised mean as a double (before the cast to the dtype)."""
    with np.errstate(all="ignore"):
        return np.float64(exact_sum(values, "float64")) / np.float64(len(values))


def lines(x, axes):
    """x with the reduced axes (None: all) last and flattened: (kept shape, 2-d array)."""
    axes = tuple(range(x.ndim)) if axes is None else tuple(a % x.ndim for a in axes)
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, kept + list(axes))
    kept_shape = tuple(x.shape[a] for a in kept)
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    return kept_shape, moved.reshape(int(np.prod(kept_shape, dtype=np.int64)), n), axes


def finish(out, kept_shape, x, axes, keepdims):
    r = np.asarray(out).reshape(kept_shape)
    if keepdims:
        r = r.reshape(tuple(1 if a in axes else e for a, e in enumerate(x.shape)))
    return r


def reduce(op, x, axes, keepdims):
    """sum or mean of a float array under exact_sums."""
    kept_shape, rows, axes = lines(x, axes)
    dtype = x.dtype.name
    if op == "sum":
        out = [exact_sum(r, dtype) for r in rows]
    else:
        out = [np.array(exact_mean(r), dtype)[()] for r in rows]
    return finish(np.array(out, dtype=dtype), kept_shape, x, axes, keepdims)


def moment(op, x, axes, ddof, keepdims):
    """var or std of a float array under exact_sums."""
    kept_shape, rows, axes = lines(x, axes)
    out = []
    with np.errstate(all="ignore"):
        for r in rows:
            xd = r.astype(np.float64)
            d = xd - exact_mean(xd)
            v = np.float64(exact_sum(d * d, "float64")) / np.float64(max(len(r) - ddof, 0))
            out.append(np.sqrt(v) if op == "std" else v)
    return finish(np.array(out, dtype=np.float64).astype(x.dtype), kept_shape, x, axes,
                  keepdims)


def cumsum(x, axis):
    """cumsum of a float array under exact_sums: each prefix's promised sum."""
    moved = np.moveaxis(x, axis, -1)
    out = np.empty(moved.shape, dtype=x.dtype)
    for idx in np.ndindex(moved.shape[:-1]):
        out[idx] = prefix_sums(moved[idx], x.dtype.name)
    return np.moveaxis(out, -1, axis)
