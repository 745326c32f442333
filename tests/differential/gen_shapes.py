# SPDX-License-Identifier: Apache-2.0
"""The shape operations and scans of the differential programs (contract v2, sections 8.1 and
8.2, and 8.3's map_overlap): transpose, moveaxis, swapaxes, expand_dims, squeeze, broadcast_to,
reshape, concatenate, stack, cumsum, cumprod and a stencil through map_overlap, each with
NumPy's result and, now and then, an input it must refuse.

Data movement keeps a value's tolerance (moved the same way); scans of floats get a bound like
a sum's, prefix by prefix (numpy_model.scan_tol)."""

import numpy as np

import exact_model as em
import numpy_model as nm


class Skip(Exception):
    """The operation does not apply here; the generator tries another."""


def ints(values):
    return ",".join(str(v) for v in values) if values else "-"


def moved(val, arr, move):
    """A Val of `arr`, whose elements are val's moved by `move` (applied to val's tolerance)."""
    tol = None if val.tol is None else np.asarray(move(val.tol))
    return nm.Val("", arr, val.kind, tol)


class ShapeOps:
    """Mixed into gen_programs.Program: uses its rng, pick, leaf, emit, emit_error, allow."""

    def axis_error(self, low, high):
        """Now and then, when errors are allowed, an axis outside [low, high] (an IndexError)."""
        if self.rng.random() < 0.04 and self.allow("errors"):
            return self.rng.choice([high + 1, low - 1])
        return None

    def op_transpose(self):
        rng = self.rng
        a = self.pick(exact=False)
        nd = a.arr.ndim
        if rng.random() < 0.25:
            text = "%s = transpose %s n" % (self.name(), a.name)
            return self.emit(text, moved(a, np.transpose(a.arr), np.transpose))
        perm = list(range(nd))
        rng.shuffle(perm)
        written = [p - nd if rng.random() < 0.3 else p for p in perm]
        if nd and rng.random() < 0.05 and self.allow("errors"):
            written[0] = written[-1] if nd > 1 else nd
            error = "ValueError" if nd > 1 else "IndexError"
            return self.emit_error("%s = transpose %s %s" % (self.name(), a.name,
                                                             ints(written)), error)
        text = "%s = transpose %s %s" % (self.name(), a.name, ints(written))
        f = lambda t: np.transpose(t, perm)
        return self.emit(text, moved(a, f(a.arr), f))

    def op_moveaxis(self):
        rng = self.rng
        a = self.pick(exact=False, where=lambda v: v.arr.ndim > 0)
        nd = a.arr.ndim
        src, dst = rng.randint(-nd, nd - 1), rng.randint(-nd, nd - 1)
        bad = self.axis_error(-nd, nd - 1)
        if bad is not None:
            return self.emit_error("%s = moveaxis %s %d %d" % (self.name(), a.name, bad, dst),
                                   "IndexError")
        text = "%s = moveaxis %s %d %d" % (self.name(), a.name, src, dst)
        f = lambda t: np.moveaxis(t, src, dst)
        return self.emit(text, moved(a, f(a.arr), f))

    def op_swapaxes(self):
        rng = self.rng
        a = self.pick(exact=False, where=lambda v: v.arr.ndim > 0)
        nd = a.arr.ndim
        x, y = rng.randint(-nd, nd - 1), rng.randint(-nd, nd - 1)
        text = "%s = swapaxes %s %d %d" % (self.name(), a.name, x, y)
        f = lambda t: np.swapaxes(t, x, y)
        return self.emit(text, moved(a, f(a.arr), f))

    def op_expand_dims(self):
        rng = self.rng
        a = self.pick(exact=False, where=lambda v: v.arr.ndim < 4)
        nd = a.arr.ndim
        count = rng.choice([1, 1, 1, 2]) if nd < 3 else 1
        out = nd + count
        axes = rng.sample(range(out), count)
        written = [x - out if rng.random() < 0.3 else x for x in axes]
        bad = self.axis_error(-out, out - 1)
        if bad is not None:
            text = "%s = expand_dims %s %s" % (self.name(), a.name, ints(written[:-1] + [bad]))
            return self.emit_error(text, "IndexError")
        text = "%s = expand_dims %s %s" % (self.name(), a.name, ints(written))
        f = lambda t: np.expand_dims(t, tuple(written))
        return self.emit(text, moved(a, f(a.arr), f))

    def op_squeeze(self):
        rng = self.rng
        a = self.pick(exact=False)
        ones = [k for k, e in enumerate(a.arr.shape) if e == 1]
        others = [k for k, e in enumerate(a.arr.shape) if e != 1]
        if others and rng.random() < 0.05 and self.allow("errors"):
            text = "%s = squeeze %s %d" % (self.name(), a.name, rng.choice(others))
            return self.emit_error(text, "ValueError")
        if not ones or rng.random() < 0.3:
            text = "%s = squeeze %s all" % (self.name(), a.name)
            return self.emit(text, moved(a, np.squeeze(a.arr), np.squeeze))
        axes = sorted(rng.sample(ones, rng.randint(1, len(ones))))
        text = "%s = squeeze %s %s" % (self.name(), a.name, ints(axes))
        f = lambda t: np.squeeze(t, tuple(axes))
        return self.emit(text, moved(a, f(a.arr), f))

    def op_broadcast_to(self):
        rng = self.rng
        a = self.pick(exact=False, where=lambda v: v.arr.ndim < 4)
        shape = [e if e != 1 or rng.random() < 0.4 else rng.randint(0, 4) for e in a.arr.shape]
        shape = [rng.randint(1, 4) for _ in range(rng.randint(0, 4 - len(shape)))] + shape
        if a.arr.ndim and rng.random() < 0.05 and self.allow("errors"):
            k = -rng.randint(1, a.arr.ndim)
            if a.arr.shape[k] != 1:
                shape[k] = a.arr.shape[k] + 1
                text = "%s = broadcast_to %s %s" % (self.name(), a.name, ints(shape))
                return self.emit_error(text, "ShapeError")
        text = "%s = broadcast_to %s %s" % (self.name(), a.name, ints(shape))
        f = lambda t: np.broadcast_to(t, tuple(shape))
        return self.emit(text, moved(a, f(a.arr), f))

    def op_reshape(self):
        rng = self.rng
        a = self.pick(exact=False)
        n = a.arr.size
        shape = []
        rest = n
        for _ in range(rng.choice([1, 2, 2, 3])):  # the runner indexes up to rank 4
            d = [k for k in range(1, rest + 1) if rest % k == 0] if rest else [0, 1, 2]
            e = rng.choice(d)
            shape.append(e)
            rest = rest // e if e else rest
        if rest != 1 and n:
            shape.append(rest)
        rng.shuffle(shape)
        if n and rng.random() < 0.05 and self.allow("errors"):
            shape.append(2)
            text = "%s = reshape %s %s" % (self.name(), a.name, ints(shape))
            return self.emit_error(text, "ShapeError")
        if int(np.prod(shape, dtype=np.int64)) != n:
            raise Skip()
        written = list(shape)
        if shape and all(shape) and rng.random() < 0.4:
            written[rng.randrange(len(shape))] = -1
        text = "%s = reshape %s %s" % (self.name(), a.name, ints(written))
        f = lambda t: np.reshape(t, tuple(shape))
        return self.emit(text, moved(a, f(a.arr), f))

    def joined(self, new_axis):
        """Two to four exact values of one dtype that concatenate (stack, with new_axis) allows."""
        rng = self.rng
        first = self.pick(where=lambda v: 0 < v.arr.ndim + new_axis <= 4)
        nd = first.arr.ndim
        axis = rng.randint(-nd - new_axis, nd - 1 + new_axis)
        arrays = [first]
        for _ in range(rng.randint(1, 3)):
            shape = list(first.arr.shape)
            if not new_axis:
                shape[axis] = rng.randint(0 if rng.random() < 0.1 else 1, 4)
            same = lambda v: v.dtype == first.dtype and v.arr.shape == tuple(shape)
            try:
                arrays.append(self.pick(where=same) if rng.random() < 0.4 else None)
            except Skip:
                arrays.append(None)
            if arrays[-1] is None:
                arrays[-1] = self.leaf(tuple(shape), first.dtype)
        return arrays, axis

    def op_concatenate(self):
        arrays, axis = self.joined(False)
        names = " ".join(v.name for v in arrays)
        if self.rng.random() < 0.05 and self.allow("errors"):
            wrong = [e + 1 for e in arrays[0].arr.shape]
            if len(wrong) > 1:
                arrays.append(self.leaf(tuple(wrong), arrays[0].dtype))
                text = "%s = concatenate %d %s %s" % (self.name(), axis, names, arrays[-1].name)
                return self.emit_error(text, "ShapeError")
        text = "%s = concatenate %d %s" % (self.name(), axis, names)
        return self.emit(text, nm.Val("", np.concatenate([v.arr for v in arrays], axis)))

    def op_stack(self):
        arrays, axis = self.joined(True)
        text = "%s = stack %d %s" % (self.name(), axis, " ".join(v.name for v in arrays))
        return self.emit(text, nm.Val("", np.stack([v.arr for v in arrays], axis)))

    def op_scan(self):
        rng = self.rng
        a = self.pick(where=lambda v: v.arr.ndim > 0)
        op = rng.choice(["cumsum", "cumsum", "cumprod"])
        nd = a.arr.ndim
        axis = rng.randint(-nd, nd - 1)
        bad = self.axis_error(-nd, nd - 1)
        if bad is not None:
            return self.emit_error("%s = scan %s %s %d" % (self.name(), op, a.name, bad),
                                   "IndexError")
        fl = nm.is_float(a.dtype)
        if op == "cumprod" and fl and not nm.prod_is_tame(a.arr):
            raise Skip()
        if fl and a.nonfinite() and not self.allow("nonfinite-sums"):
            raise Skip()
        text = "%s = scan %s %s %d" % (self.name(), op, a.name, axis)
        if self.exact_sums and fl and op == "cumsum":
            return self.emit(text, nm.Val("", em.cumsum(a.arr, axis)))
        r = getattr(np, op)(a.arr, axis)
        if fl:
            return self.emit(text, nm.Val("", r, "abs", nm.scan_tol(op, a.arr, r, axis)))
        return self.emit(text, nm.Val("", r))

    def op_overlap(self):
        """map_overlap of a weighted box stencil (eval_overlap.cpp) over an integer array: each
        element the sum of w * x over the box of `depth` around it, w = 1 + the offset's C-order
        index in the box, the edges padded as the boundary says (none: terms left out)."""
        rng = self.rng
        a = self.pick(where=lambda v: v.dtype in ("int32", "int64") and 0 < v.arr.ndim <= 3
                      and v.arr.size > 0)
        shape = a.arr.shape
        depth = [rng.randint(0, min(2, e)) for e in shape]
        kind = rng.choice(["none", "periodic", "reflect", "nearest", "constant"])
        value = rng.randint(-3, 3)
        tail = " %d" % value if kind == "constant" else ""
        if rng.random() < 0.05 and self.allow("errors"):
            k = rng.randrange(len(shape))
            bad, error = (depth[:k] + [shape[k] + 1] + depth[k + 1:], "ValueError")
            if rng.random() < 0.5:
                bad, error = depth + [0], "ShapeError"
            text = "%s = overlap %s %s %s%s" % (self.name(), a.name, ints(bad), kind, tail)
            return self.emit_error(text, error)
        text = "%s = overlap %s %s %s%s" % (self.name(), a.name, ints(depth), kind, tail)
        mode = {"none": "constant", "periodic": "wrap", "reflect": "symmetric",
                "nearest": "edge", "constant": "constant"}[kind]
        pad = {"constant_values": value if kind == "constant" else 0} if mode == "constant" else {}
        padded = np.pad(a.arr, [(d, d) for d in depth], mode=mode, **pad)
        out = np.zeros(shape, dtype=a.arr.dtype)
        with np.errstate(all="ignore"):
            for t, off in enumerate(np.ndindex(*[2 * d + 1 for d in depth])):
                part = padded[tuple(slice(o, o + e) for o, e in zip(off, shape))]
                out = out + part * a.arr.dtype.type(t + 1)
        return self.emit(text, nm.Val("", out.astype(a.arr.dtype)))

    SHAPE_OPS = [("op_overlap", 4), ("op_transpose", 5), ("op_moveaxis", 2), ("op_swapaxes", 2),
                 ("op_expand_dims", 2), ("op_squeeze", 2), ("op_broadcast_to", 3),
                 ("op_reshape", 5), ("op_concatenate", 4), ("op_stack", 2), ("op_scan", 6)]
