#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes random chunked programs and what NumPy computes for them, for the differential runner.

  gen_programs.py --count 300 --seed 1 --out programs.txt [--exclude TAG,...] [--only ID]
                  [--exact-sums] [--max-extent N]

Program i depends only on (seed, i), so one failing program is regenerated alone with --only.
A program makes arrays (from host data, arange, full, zeros, ones) of random shapes, chunkings
and dtypes, applies random operations (operators and functions with arrays and Python scalars
under NEP 50, broadcasting, slicing with negative steps, astype, reductions, rechunk, and the
shape operations and scans of gen_shapes.py) and checks
the values, dtypes and shapes, or the error an operation must raise. numpy_model.py says how
closely values must match.

Operations NumPy refuses for some values only (an integer to a negative power), or that give a
dtype chunked does not have (bool % bool is int8, sqrt of bool float16), are never generated.
Tags name the corners a program touches; --exclude leaves them out (--list-tags describes them).
"""

import argparse
import random
import sys
import warnings

import numpy as np

import exact_model as em
import numpy_model as nm
from gen_shapes import ShapeOps, Skip

TAGS = {
    "nonfinite": "host data holding NaN or infinities",
    "int-extremes": "integers near the limits of their type (wrapping arithmetic)",
    "float-to-int": "astype from NaN, infinite or out-of-range floats to integers",
    "scalar-range": "Python int scalars outside the range of the array's integer type",
    "empty": "arrays with a zero-length axis",
    "errors": "operations that must raise (shapes, indices, axes, zero steps)",
    "nonfinite-moments": "mean, var and std over data holding NaN or infinities",
    "nonfinite-sums": "sum and prod over data holding NaN or infinities",
    "nan-arg": "argmin and argmax over data holding NaN",
    "ddof-large": "var and std with ddof >= the number of elements",
    "bool-subtract": "bool - bool, which NumPy refuses",
}

INT_EXTREMES = {"int32": [-2**31, 2**31 - 1, -2**31 + 1], "int64": [-2**63, 2**63 - 1, 2**40]}
FLOAT_SPECIALS = [float("nan"), float("inf"), float("-inf")]


class Program(ShapeOps):
    def __init__(self, pid, rng, exclude, exact_sums=False, max_extent=6):
        self.pid, self.rng, self.exclude = pid, rng, exclude
        self.max_extent = max_extent
        self.exact_sums = exact_sums  # float sums as ComputeOptions::exact_sums promises them
        self.lines, self.vals, self.tags = [], [], set()
        self.checks = []

    # ---- helpers ---------------------------------------------------------------------------

    def allow(self, *tags):
        """Whether the tags may be used; records them if so."""
        if any(t in self.exclude for t in tags):
            return False
        self.tags.update(tags)
        return True

    def name(self):
        return "v%d" % (len(self.lines))

    def emit(self, text, val, leaf=False):
        val.name = text.split(" ", 1)[0]
        val.leaf = leaf
        self.lines.append(text)
        self.vals.append(val)
        return val

    def emit_error(self, text, error):
        self.lines.append(text)
        self.lines.append("error %s %s" % (text.split(" ", 1)[0], error))

    def pick(self, exact=True, where=None):
        pool = [v for v in self.vals if (v.exact or not exact) and (where is None or where(v))]
        if not pool:
            raise Skip()
        return self.rng.choice(pool)

    def rand_shape(self):
        r = self.rng.choices([0, 1, 2, 3, 4], [8, 32, 36, 18, 6])[0]
        shape = [self.rng.randint(1, self.max_extent) for _ in range(r)]
        if r and self.rng.random() < 0.06 and self.allow("empty"):
            shape[self.rng.randrange(r)] = 0
        return tuple(shape)

    def rand_chunks(self, shape):
        if not shape:
            return "-"
        return ",".join(str(self.rng.randint(1, max(1, e))) for e in shape)

    def operand_shape(self, shape):
        """A shape that broadcasts with `shape`: some axes 1, maybe fewer leading axes."""
        s = list(shape)
        if s and self.rng.random() < 0.3:
            s = s[self.rng.randint(1, len(s)):]
        return tuple(1 if (e and self.rng.random() < 0.3) else e for e in s)

    # ---- leaves ----------------------------------------------------------------------------

    def rand_data(self, dtype, shape):
        n = int(np.prod(shape, dtype=np.int64))
        rng = self.rng
        if dtype == "bool":
            data = [rng.random() < 0.5 for _ in range(n)]
        elif dtype.startswith("int"):
            data = [rng.randint(-12, 12) for _ in range(n)]
            if n and rng.random() < 0.2 and self.allow("int-extremes"):
                for _ in range(rng.randint(1, 2)):
                    data[rng.randrange(n)] = rng.choice(INT_EXTREMES[dtype])
        else:
            pick = lambda: rng.choice([rng.randint(-8, 8), rng.randint(-16, 16) / 4,
                                       rng.gauss(0, 10)])
            data = [pick() for _ in range(n)]
            if n and rng.random() < 0.15 and self.allow("nonfinite"):
                for _ in range(rng.randint(1, 2)):
                    data[rng.randrange(n)] = rng.choice(FLOAT_SPECIALS)
            if n and rng.random() < 0.1:
                data[rng.randrange(n)] = rng.choice([-0.0, 1e-30, 3e30, 1e-310 if dtype == "float64"
                                                     else 1e-40])
        return np.array(data, dtype=nm.NP_TYPES[dtype]).reshape(shape)

    def leaf(self, shape=None, dtype=None):
        rng = self.rng
        shape = self.rand_shape() if shape is None else shape
        dtype = dtype or rng.choice(nm.DTYPES)
        chunks = self.rand_chunks(shape)
        kind = rng.choices(["array", "arange", "full", "zeros", "ones"], [60, 12, 14, 7, 7])[0]
        if kind == "arange" and (len(shape) != 1 or dtype == "bool"):
            kind = "array"
        v = self.name()
        if kind == "array":
            arr = self.rand_data(dtype, shape)
            vals = " ".join(nm.format_value(x, dtype) for x in arr.ravel())
            text = "%s = array %s %s %s %s" % (v, dtype, nm.format_shape(shape), chunks, vals)
        elif kind == "arange":
            # Steps and starts that are exact in float32, so that NumPy's start + i * delta and
            # chunked's start + i * step agree exactly.
            step = rng.choice([1, 2, 3, -1, -2]) * (0.5 if is_float(dtype) and rng.random() < 0.5
                                                    else 1)
            start = rng.randint(-5, 5)
            stop = start + step * shape[0]
            arr = np.arange(start, stop, step, dtype=nm.NP_TYPES[dtype])
            chunk = rng.randint(1, max(1, shape[0]))
            text = "%s = arange %s %s %s %s %d" % (v, dtype, start, stop, step, chunk)
            shape = arr.shape
        else:
            value = {"zeros": 0, "ones": 1}.get(kind)
            if value is None:
                value = self.rand_data(dtype, (1,))[0]
            arr = np.full(shape, value, dtype=nm.NP_TYPES[dtype])
            text = "%s = full %s %s %s %s" % (v, dtype, nm.format_shape(shape), chunks,
                                              nm.format_value(value, dtype))
        return self.emit(text, nm.Val(v, arr), leaf=True)

    # ---- operands --------------------------------------------------------------------------

    def scalar_for(self, dtype):
        rng = self.rng
        kind = rng.choices(["bool", "int", "float"], [15, 45, 40])[0]
        if kind == "bool":
            return rng.random() < 0.5
        if kind == "int":
            s = rng.randint(-6, 6)
            if rng.random() < 0.05 and not nm.fits(2**40, dtype) and self.allow("scalar-range"):
                s = 2**40
            return s
        return rng.choice([rng.randint(-8, 8) / 2, round(rng.gauss(0, 5), 3), 0.1])

    def operand(self, a):
        """A second operand for a: a Python scalar, an array that broadcasts with it, or one that
        does not (an error case)."""
        rng = self.rng
        if rng.random() < 0.4:
            return self.scalar_for(a.dtype)
        if rng.random() < 0.04 and a.arr.ndim and self.allow("errors"):
            bad = list(a.arr.shape)
            bad[-1] += 1 if bad[-1] != 1 else 2
            return self.leaf(tuple(bad))
        fits = lambda v: broadcastable(v.arr.shape, a.arr.shape)
        if rng.random() < 0.5:
            try:
                return self.pick(where=fits)
            except Skip:
                pass
        return self.leaf(self.operand_shape(a.arr.shape))

    # ---- operations ------------------------------------------------------------------------

    def op_binary(self):
        rng = self.rng
        a = self.pick()
        b = self.operand(a)
        op = rng.choice(list(nm.BINARY))
        lhs, rhs = (a, b) if rng.random() < 0.7 else (b, a)
        x, y = [o.arr if isinstance(o, nm.Val) else o for o in (lhs, rhs)]
        text = "%s = binary %s %s %s" % (self.name(), op, ref(lhs), ref(rhs))
        arrays = [o for o in (lhs, rhs) if isinstance(o, nm.Val)]
        both_bool = all(dtype_of(o) == "bool" for o in (lhs, rhs))
        if both_bool and op in ("mod", "pow"):
            raise Skip()  # NumPy gives int8
        if both_bool and op == "sub":
            if self.allow("bool-subtract"):
                return self.emit_error(text, "Error")  # NumPy: TypeError
            raise Skip()
        # The operand types alone: arrays of ones, and Python ints that fit any type.
        probe = [np.ones((), o.arr.dtype) if isinstance(o, nm.Val) else
                 (1 if type(o) is int else o) for o in (lhs, rhs)]
        try:
            nm.binary(op, *probe)
        except (TypeError, ValueError):
            raise Skip()  # bitwise operations of floats do not compile in C++; 1 ** -2
        if len(arrays) == 2 and not broadcastable(x.shape, y.shape):
            return self.emit_error(text, "ShapeError")
        scalars = [o for o in (lhs, rhs) if type(o) is int and not nm.fits(o, a.dtype)]
        if scalars:
            if op in ("eq", "ne", "lt", "le", "gt", "ge"):
                raise Skip()  # NumPy 1.x raises, NumPy 2 compares the values
            return self.emit_error(text, "Error")  # NumPy: OverflowError (NEP 50)
        try:
            r = nm.binary(op, x, y)
        except (TypeError, ValueError):
            raise Skip()  # bitwise on floats, integer to a negative power
        if op == "pow" and nm.is_float(r.dtype):
            return self.emit(text, nm.Val("", r, "ulp"))
        return self.emit(text, nm.Val("", r))

    def op_unary(self):
        a = self.pick()
        op = self.rng.choice(list(nm.UNARY))
        if a.dtype == "bool" and op in nm.MATH | {"neg", "sqrt"}:
            raise Skip()  # NumPy: float16 / TypeError
        if nm.is_float(a.dtype) and op == "not":
            raise Skip()
        r = nm.unary(op, a.arr)
        text = "%s = unary %s %s" % (self.name(), op, a.name)
        return self.emit(text, nm.Val("", r, "ulp" if op in nm.MATH else "exact"))

    def op_where(self):
        rng = self.rng
        c = self.pick(where=lambda v: v.dtype == "bool" or rng.random() < 0.2)
        a, b = self.operand(c), self.operand(c)
        ops = [o for o in (c, a, b) if isinstance(o, nm.Val)]
        text = "%s = where %s %s %s" % (self.name(), c.name, ref(a), ref(b))
        shapes = [o.arr.shape for o in ops]
        if not broadcastable(*shapes):
            return self.emit_error(text, "ShapeError")
        xa, xb = [o.arr if isinstance(o, nm.Val) else o for o in (a, b)]
        if any(isinstance(s, int) and not nm.fits(s, "int32") for s in (xa, xb)):
            raise Skip()  # scalar-range is covered by the operators
        return self.emit(text, nm.Val("", nm.where(c.arr, xa, xb)))

    def op_clip(self):
        x = self.pick()
        lo, hi = self.operand(x), self.operand(x)
        text = "%s = clip %s %s %s" % (self.name(), x.name, ref(lo), ref(hi))
        ops = [o.arr.shape for o in (x, lo, hi) if isinstance(o, nm.Val)]
        if not broadcastable(*ops):
            return self.emit_error(text, "ShapeError")
        args = [o.arr if isinstance(o, nm.Val) else o for o in (x, lo, hi)]
        for s in args[1:]:
            if isinstance(s, int) and not isinstance(s, bool) and not nm.fits(s, x.dtype):
                raise Skip()
        try:
            r = nm.clip(*args)
        except TypeError:
            raise Skip()
        return self.emit(text, nm.Val("", r))

    def op_astype(self):
        a = self.pick()
        dtype = self.rng.choice(nm.DTYPES)
        if nm.is_float(a.dtype) and dtype.startswith("int"):
            with np.errstate(all="ignore"):
                f = a.arr.astype(np.float64)
                info = np.iinfo(dtype)
                wild = ~(np.isfinite(f) & (f > info.min - 1.0) & (f < info.max + 1.0))
            if np.any(wild) and not self.allow("float-to-int"):
                raise Skip()
        text = "%s = astype %s %s" % (self.name(), dtype, a.name)
        return self.emit(text, nm.Val("", nm.astype(a.arr, dtype)))

    def op_index(self):
        rng = self.rng
        a = self.pick(exact=False, where=lambda v: v.arr.ndim > 0)
        shape = a.arr.shape
        args, tokens, error = [], [], None
        for k in range(rng.randint(1, len(shape))):
            n = shape[k]
            if rng.random() < 0.25:
                i = rng.randint(-n, n - 1) if n else 0
                if not error and (n == 0 or rng.random() < 0.05) and self.allow("errors"):
                    i, error = n + rng.randint(0, 2), "IndexError"
                elif n == 0:
                    raise Skip()
                args.append(i)
                tokens.append("i:%d" % i)
            else:
                bound = lambda: None if rng.random() < 0.3 else rng.randint(-n - 2, n + 2)
                start, stop = bound(), bound()
                step = rng.choice([1, 1, 2, 3, -1, -1, -2, -3, n + 1, -n - 1])
                if not error and rng.random() < 0.02 and self.allow("errors"):
                    step, error = 0, "ValueError"
                args.append(slice(start, stop, step))
                tokens.append("s:%s:%s:%d" % (opt(start), opt(stop), step))
        text = "%s = index %s %s" % (self.name(), a.name, " ".join(tokens))
        if error:
            return self.emit_error(text, error)
        view = lambda t: None if t is None else np.asarray(t[tuple(args)])
        return self.emit(text, nm.Val("", a.arr[tuple(args)], a.kind, view(a.tol)))

    def rand_axes(self, nd):
        """Axes to reduce (None: all), maybe with an error."""
        rng = self.rng
        if nd == 0 or rng.random() < 0.3:
            return None, "all", None
        axes = rng.sample(range(nd), rng.randint(1, nd))
        written = [a - nd if rng.random() < 0.3 else a for a in axes]
        error = None
        if rng.random() < 0.04 and self.allow("errors"):
            if rng.random() < 0.5:
                written.append(nd + rng.randint(0, 1))
                error = "IndexError"
            else:
                written.append(written[0])
                error = "ValueError"
        return sorted(axes), ",".join(str(a) for a in written), error

    def op_reduce(self):
        rng = self.rng
        a = self.pick()
        op = rng.choice(list(nm.REDUCE))
        axes, written, error = self.rand_axes(a.arr.ndim)
        keep = rng.random() < 0.3
        text = "%s = reduce %s %s %s %d" % (self.name(), op, a.name, written, keep)
        if error:
            return self.emit_error(text, error)
        reduced = range(a.arr.ndim) if axes is None else axes
        if op in ("min", "max") and any(a.arr.shape[k] == 0 for k in reduced):
            return self.emit_error(text, "ValueError")  # no identity
        fl = nm.is_float(a.dtype)
        if op == "prod" and fl and not nm.prod_is_tame(a.arr):
            raise Skip()
        if fl and a.nonfinite():
            tag = "nonfinite-moments" if op == "mean" else "nonfinite-sums"
            if op in ("sum", "prod", "mean") and not self.allow(tag):
                raise Skip()
        if self.exact_sums and fl and op in ("sum", "mean"):
            return self.emit(text, nm.Val("", em.reduce(op, a.arr, axes, keep)))
        r = nm.reduce(op, a.arr, None if axes is None else tuple(axes), keep)
        if op == "mean" or (op in ("sum", "prod") and nm.is_float(r.dtype)):
            t = nm.reduce_tol(op, a.arr, r, None if axes is None else tuple(axes), keep)
            return self.emit(text, nm.Val("", r, "abs", t))
        return self.emit(text, nm.Val("", r))

    def op_moment(self):
        rng = self.rng
        a = self.pick()
        op = rng.choice(["var", "std"])
        axes, written, error = self.rand_axes(a.arr.ndim)
        n = nm.reduced_count(a.arr.shape, axes)
        ddof = rng.choice([0, 0, 1, 2])
        if ddof >= n and not self.allow("ddof-large"):
            raise Skip()
        if a.nonfinite() and not self.allow("nonfinite-moments"):
            raise Skip()
        if a.dtype == "float32" and not nm.squares_fit(a.arr):
            raise Skip()  # NumPy's float32 squares overflow where chunked's do not
        keep = rng.random() < 0.3
        text = "%s = moment %s %s %s %d %d" % (self.name(), op, a.name, written, ddof, keep)
        if error:
            return self.emit_error(text, error)
        ax = None if axes is None else tuple(axes)
        if self.exact_sums and nm.is_float(a.dtype):
            return self.emit(text, nm.Val("", em.moment(op, a.arr, ax, ddof, keep)))
        r = nm.moment(op, a.arr, ax, ddof, keep)
        return self.emit(text, nm.Val("", r, "abs", nm.reduce_tol(op, a.arr, r, ax, keep, ddof)))

    def op_arg(self):
        rng = self.rng
        a = self.pick()
        op = rng.choice(["argmin", "argmax"])
        nd = a.arr.ndim
        axis = None if nd == 0 or rng.random() < 0.4 else rng.randint(-nd, nd - 1)
        text = "%s = arg %s %s %s" % (self.name(), op, a.name, opt(axis))
        if a.arr.size == 0 and (axis is None or a.arr.shape[axis] == 0):
            if self.allow("errors"):
                return self.emit_error(text, "ValueError")
            raise Skip()
        if a.has_nan() and not self.allow("nan-arg"):
            raise Skip()
        return self.emit(text, nm.Val("", nm.arg(op, a.arr, axis)))

    def op_rechunk(self):
        a = self.pick(exact=False)
        text = "%s = rechunk %s %s" % (self.name(), a.name, self.rand_chunks(a.arr.shape))
        return self.emit(text, nm.Val("", a.arr, a.kind, a.tol))

    OPS = [("op_binary", 30), ("op_unary", 12), ("op_where", 6), ("op_clip", 4),
           ("op_astype", 8), ("op_index", 14), ("op_reduce", 14), ("op_moment", 5),
           ("op_arg", 5), ("op_rechunk", 5)] + ShapeOps.SHAPE_OPS

    def build(self):
        rng = self.rng
        for _ in range(rng.randint(1, 2)):
            self.leaf()
        target = rng.randint(2, 7)
        done = attempts = 0
        while done < target and attempts < 60:
            attempts += 1
            method = rng.choices([m for m, _ in self.OPS], [w for _, w in self.OPS])[0]
            try:
                getattr(self, method)()
                done += 1
            except Skip:
                pass
        # Every result, and some leaves (the copies from_host makes).
        self.checks = [v for v in self.vals if not v.leaf or rng.random() < 0.3]

    def text(self):
        out = ["program %d tags %s" % (self.pid, ",".join(sorted(self.tags)) or "-")]
        out += self.lines
        for v in self.checks:
            out.append("check %s %s %s %s" % (v.name, v.dtype, nm.format_shape(v.arr.shape),
                                              v.kind if v.kind != "ulp" else "ulp %d" % nm.MATH_ULP))
            if v.kind == "abs":
                out.append("tolerance " + " ".join(repr(float(t)) for t in v.tol.ravel()))
            out.append("values " + " ".join(nm.format_value(x, v.dtype) for x in v.arr.ravel()))
        out.append("end")
        return "\n".join(out) + "\n"


def ref(o):
    return o.name if isinstance(o, nm.Val) else nm.format_scalar(o)


def dtype_of(o):
    if isinstance(o, nm.Val):
        return o.dtype
    return "bool" if isinstance(o, bool) else "other"


def opt(x):
    return "n" if x is None else str(x)


def is_float(dtype):
    return dtype.startswith("float")


def broadcastable(*shapes):
    try:
        np.broadcast_shapes(*shapes)
        return True
    except ValueError:
        return False


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--count", type=int, default=300)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default="-")
    p.add_argument("--exclude", default="", help="comma-separated tags to leave out")
    p.add_argument("--only", type=int, default=None, help="write program ONLY alone")
    p.add_argument("--max-extent", type=int, default=6,
                   help="longest axis of the arrays made (larger ones take several tiles)")
    p.add_argument("--exact-sums", action="store_true",
                   help="float sums, means, variances and cumsums as exact_sums promises them")
    p.add_argument("--list-tags", action="store_true")
    args = p.parse_args(argv)
    if args.list_tags:
        for t, what in TAGS.items():
            print("%-18s %s" % (t, what))
        return 0
    # NumPy warns of what the programs do on purpose: overflow, NaN, empty means.
    warnings.simplefilter("ignore")
    exclude = {t for t in args.exclude.split(",") if t}
    unknown = exclude - set(TAGS)
    if unknown:
        p.error("unknown tags: %s (see --list-tags)" % ",".join(sorted(unknown)))
    ids = [args.only] if args.only is not None else range(args.count)
    out = sys.stdout if args.out == "-" else open(args.out, "w")
    with out:
        for pid in ids:
            prog = Program(pid, random.Random("%d/%d" % (args.seed, pid)), exclude,
                           args.exact_sums, args.max_extent)
            prog.build()
            out.write(prog.text())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
