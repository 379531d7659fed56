"""The LLVM IR of ``register_gemm``'s kernels, written with llvmlite's IR builder.

* ``k{mr}x{nv}``: an ``mr x (lanes * nv)`` tile of ``C = alpha * A @ B`` (``C += ...``
  when ``accumulate``), kept in ``mr * nv`` vector registers across the whole k loop
  (phi nodes, so LLVM allocates them as registers); the last vector of each row is
  masked to ``tail`` lanes, so a tile never reads past B's row nor writes past C's.
  ``mr`` goes up to ``max_mr``, and to twice that for tiles at most half as wide.
* ``d{mr}x{nc}``: an ``mr x nc`` tile of ``C = alpha * A @ Bt.T`` as sums along k.
* ``tile`` and ``dot`` pick the kernel for ``(mr, nv)``; ``transpose`` transposes a
  ``lanes x lanes`` block.
* the epilogues change a tile of C right after it is stored, while it is in L1:
  ``bias`` adds a bias along its columns and ``bias_relu`` then clips it at 0 (a
  dense layer's bias and ReLU: ``optimizer/bias_folds.py``); ``relu_gate`` zeroes
  the values whose ReLU output ``y`` is not positive (a ReLU's gradient:
  ``optimizer/relu_gate_folds.py``).
* ``tiles`` is ``tile`` with k in two levels: ``runs`` runs of ``k``, each run's A and
  B ``a_outer`` and ``b_outer`` floats after the last's start (a convolution's window
  rows, read where they lie: ``conv_fused``), the tile in registers throughout.

Every argument is an integer (addresses and strides counted in floats) but ``alpha``,
so numba calls them through an address (``register_gemm._call_tile``)::

    tile(mr, nv, a, a_row_stride, a_col_stride, b, b_row_stride, c, c_row_stride,
         k, alpha, accumulate, tail)
    tiles(..., tail, runs, a_outer, b_outer)
    bias(c, c_row_stride, rows, columns, x, x_row_stride)     # and bias_relu, relu_gate

An epilogue's operand ``x`` is read as a matrix like C: a bias is one with a row stride
of 0.
"""

from __future__ import annotations

import llvmlite.ir as ir

__all__ = ["module", "EPILOGUES"]

_F32 = ir.FloatType()
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)


def module(max_mr: int, max_nv: int, lanes: int) -> ir.Module:
    vector = ir.VectorType(_F32, lanes)
    mod = ir.Module(name="register_gemm")
    pointer, mask = vector.as_pointer(), ir.VectorType(ir.IntType(1), lanes)
    intrinsics = (
        ir.Function(mod, ir.FunctionType(vector, [vector] * 3), name=f"llvm.fma.v{lanes}f32"),
        ir.Function(mod, ir.FunctionType(vector, [pointer, _I32, mask, vector]),
                    name=f"llvm.masked.load.v{lanes}f32.p0"),
        ir.Function(mod, ir.FunctionType(ir.VoidType(), [vector, pointer, _I32, mask]),
                    name=f"llvm.masked.store.v{lanes}f32.p0"))
    # the same registers hold twice the rows of a tile half as wide
    kernels = {(mr, nv): _kernel(mod, intrinsics, vector, mr, nv)
               for nv in range(1, max_nv + 1)
               for mr in range(1, (2 * max_mr if 2 * nv <= max_nv else max_mr) + 1)}
    _dispatch(mod, "tile", kernels, max_nv)
    _dispatch(mod, "tiles", kernels, max_nv, outer=True)
    reduce_add = ir.Function(mod, ir.FunctionType(_F32, [_F32, vector]),
                             name=f"llvm.vector.reduce.fadd.v{lanes}f32")
    dots = {(mr, nc): _dot_kernel(mod, (*intrinsics, reduce_add), vector, mr, nc)
            for mr in range(1, max_mr + 1) for nc in range(1, max_nv + 1)}
    _dispatch(mod, "dot", dots, max_nv)
    _transpose_block(mod, vector)
    for name, combine in EPILOGUES.items():
        _epilogue(mod, intrinsics, vector, max_nv, name, combine)
    return mod


def _const(value: int) -> ir.Constant:
    return ir.Constant(_I64, value)


def _kernel_type(outer: bool = False) -> ir.FunctionType:
    fp = _F32.as_pointer()
    return ir.FunctionType(ir.VoidType(), [fp, _I64, _I64, fp, _I64, fp, _I64, _I64, _F32,
                                           _I64, _I64] + [_I64] * (3 if outer else 0))


def _kernel(mod, intrinsics, vector, mr, nv) -> ir.Function:
    fn = ir.Function(mod, _kernel_type(outer=True), name=f"k{mr}x{nv}")
    fn.linkage = "internal"
    a, a_rows, a_cols, b, ldb, c, ldc, k, alpha, accumulate, tail, runs, a_outer, b_outer = \
        fn.args
    fma, masked_load, masked_store = intrinsics
    for pointer in (a, b, c):
        pointer.add_attribute("noalias")
    entry, run, loop, next_run, done = (fn.append_basic_block(n) for n in (
        "entry", "run", "loop", "next_run", "done"))
    lanes = vector.count
    zero = ir.Constant(vector, None)
    builder = ir.IRBuilder(entry)
    mask = _lanes_below(builder, lanes, tail)    # the last vector's columns inside C
    builder.cbranch(builder.and_(builder.icmp_signed(">", k, _const(0)),
                                 builder.icmp_signed(">", runs, _const(0))), run, done)

    builder.position_at_end(run)                 # a run of k: A and B moved on
    j = builder.phi(_I64, name="run")
    j.add_incoming(_const(0), entry)
    carried = [[builder.phi(vector) for _ in range(nv)] for _ in range(mr)]
    a_run = builder.gep(a, [builder.mul(j, a_outer)])
    b_run = builder.gep(b, [builder.mul(j, b_outer)])
    builder.branch(loop)

    builder.position_at_end(loop)
    kk = builder.phi(_I64, name="k")
    kk.add_incoming(_const(0), run)
    tile = [[builder.phi(vector) for _ in range(nv)] for _ in range(mr)]
    b_row = builder.gep(b_run, [builder.mul(kk, ldb)])
    b_vectors = [_load(builder, masked_load, vector, builder.gep(b_row, [_const(lanes * v)]),
                       mask if v == nv - 1 else None) for v in range(nv)]
    a_column = builder.gep(a_run, [builder.mul(kk, a_cols)])
    updated = []
    for r in range(mr):
        element = builder.load(builder.gep(a_column, [builder.mul(_const(r), a_rows)]), align=4)
        updated.append([builder.call(fma, [_splat(builder, vector, element), b_vectors[v],
                                           tile[r][v]]) for v in range(nv)])
    next_k = builder.add(kk, _const(1))
    kk.add_incoming(next_k, loop)
    for r in range(mr):
        for v in range(nv):
            carried[r][v].add_incoming(zero, entry)
            carried[r][v].add_incoming(updated[r][v], next_run)
            tile[r][v].add_incoming(carried[r][v], run)
            tile[r][v].add_incoming(updated[r][v], loop)
    builder.cbranch(builder.icmp_signed("<", next_k, k), loop, next_run)

    builder.position_at_end(next_run)
    following = builder.add(j, _const(1))
    j.add_incoming(following, next_run)
    builder.cbranch(builder.icmp_signed("<", following, runs), run, done)

    builder.position_at_end(done)
    totals = []
    for r in range(mr):
        for v in range(nv):
            totals.append(builder.phi(vector))
            totals[-1].add_incoming(zero, entry)
            totals[-1].add_incoming(updated[r][v], next_run)
    scale = _splat(builder, vector, alpha)
    results = [builder.fmul(total, scale) for total in totals]
    places = []
    for r in range(mr):
        for v in range(nv):
            offset = builder.add(builder.mul(_const(r), ldc), _const(lanes * v))
            places.append((builder.gep(c, [offset]), mask if v == nv - 1 else None))
    adding, storing = fn.append_basic_block("add"), fn.append_basic_block("store")
    builder.cbranch(builder.icmp_signed("!=", accumulate, _const(0)), adding, storing)
    builder.position_at_end(adding)
    for result, (place, lanes_in) in zip(results, places):
        before = _load(builder, masked_load, vector, place, lanes_in)
        _store(builder, masked_store, builder.fadd(before, result), place, lanes_in)
    builder.ret_void()
    builder.position_at_end(storing)
    for result, (place, lanes_in) in zip(results, places):
        _store(builder, masked_store, result, place, lanes_in)
    builder.ret_void()
    return fn


def _lanes_below(builder, lanes: int, count):
    """The mask <lane < count> of a vector's lanes."""
    count32 = builder.trunc(count, _I32)
    splat = _splat(builder, ir.VectorType(_I32, lanes), count32)
    indices = ir.Constant(ir.VectorType(_I32, lanes), list(range(lanes)))
    return builder.icmp_signed("<", indices, splat)


def _load(builder, masked_load, vector, pointer, mask):
    """A vector from ``pointer``: every lane, or only those of ``mask`` (the others are
    never read: the last vector of a row may end where C's memory does)."""
    place = builder.bitcast(pointer, vector.as_pointer())
    if mask is None:
        return builder.load(place, align=4)
    return builder.call(masked_load, [place, ir.Constant(_I32, 4), mask,
                                      ir.Constant(vector, None)])


def _store(builder, masked_store, value, pointer, mask):
    place = builder.bitcast(pointer, value.type.as_pointer())
    if mask is None:
        builder.store(value, place, align=4)
    else:
        builder.call(masked_store, [value, place, ir.Constant(_I32, 4), mask])


def _splat(builder, vector, scalar):
    single = builder.insert_element(ir.Constant(vector, ir.Undefined), scalar, ir.Constant(_I32, 0))
    return builder.shuffle_vector(single, ir.Constant(vector, ir.Undefined),
                                  ir.Constant(ir.VectorType(_I32, vector.count), None))


def _dispatch(mod, name: str, kernels: dict, max_nv: int, outer: bool = False) -> None:
    """``name(mr, nv, ...)``: a switch on ``mr * (max_nv + 1) + nv`` to the kernel; the
    addresses arrive as integers (numba passes them as they are).  Without ``outer``,
    k is one run (``tile``, ``dot``)."""
    fn = ir.Function(mod, ir.FunctionType(ir.VoidType(), [_I64] * 10 + [_F32, _I64, _I64] +
                                          [_I64] * (3 if outer else 0)), name=name)
    mr, nv, a, a_rows, a_cols, b, ldb, c, ldc, k, alpha, accumulate, tail = fn.args[:13]
    runs = list(fn.args[13:]) if outer else [_const(1), _const(0), _const(0)]
    entry, fallthrough = fn.append_basic_block("entry"), fn.append_basic_block("none")
    builder = ir.IRBuilder(entry)
    key = builder.add(builder.mul(mr, _const(max_nv + 1)), nv)
    switch = builder.switch(key, fallthrough)
    fp = _F32.as_pointer()
    for (rows, vectors), kernel in kernels.items():
        case = fn.append_basic_block(f"{kernel.name}")
        switch.add_case(_const(rows * (max_nv + 1) + vectors), case)
        builder.position_at_end(case)
        arguments = [builder.inttoptr(a, fp), a_rows, a_cols, builder.inttoptr(b, fp), ldb,
                     builder.inttoptr(c, fp), ldc, k, alpha, accumulate, tail]
        if len(kernel.args) > len(arguments):
            arguments += runs
        builder.call(kernel, arguments)
        builder.ret_void()
    builder.position_at_end(fallthrough)
    builder.ret_void()


def _dot_kernel(mod, intrinsics, vector, mr, nc) -> ir.Function:
    """``d{mr}x{nc}``: an ``mr x nc`` tile of ``C = alpha * A @ Bt.T`` for A and Bt whose
    rows run along k (a product with a transposed B): each of the ``mr * nc`` sums is a
    vector over 16 k at a time, added across its lanes at the end.  The arguments are
    ``tile``'s (``a_cols`` and ``tail`` unused: k is contiguous, its last block masked)."""
    fn = ir.Function(mod, _kernel_type(), name=f"d{mr}x{nc}")
    fn.linkage = "internal"
    a, lda, _, bt, ldbt, c, ldc, k, alpha, accumulate, _ = fn.args
    fma, masked_load, _, reduce_add = intrinsics
    for pointer in (a, bt, c):
        pointer.add_attribute("noalias")
    entry, loop, done = (fn.append_basic_block(n) for n in ("entry", "loop", "done"))
    lanes = vector.count
    zero = ir.Constant(vector, None)
    builder = ir.IRBuilder(entry)
    builder.cbranch(builder.icmp_signed(">", k, _const(0)), loop, done)

    builder.position_at_end(loop)
    kk = builder.phi(_I64, name="k")
    kk.add_incoming(_const(0), entry)
    sums = [[builder.phi(vector) for _ in range(nc)] for _ in range(mr)]
    mask = _lanes_below(builder, lanes, builder.sub(k, kk))
    columns = [_load(builder, masked_load, vector,
                     builder.gep(bt, [builder.add(builder.mul(_const(j), ldbt), kk)]), mask)
               for j in range(nc)]
    updated = []
    for r in range(mr):
        row = _load(builder, masked_load, vector,
                    builder.gep(a, [builder.add(builder.mul(_const(r), lda), kk)]), mask)
        updated.append([builder.call(fma, [row, columns[j], sums[r][j]]) for j in range(nc)])
    next_k = builder.add(kk, _const(lanes))
    kk.add_incoming(next_k, loop)
    for r in range(mr):
        for j in range(nc):
            sums[r][j].add_incoming(zero, entry)
            sums[r][j].add_incoming(updated[r][j], loop)
    builder.cbranch(builder.icmp_signed("<", next_k, k), loop, done)

    builder.position_at_end(done)
    totals = []
    for r in range(mr):
        for j in range(nc):
            totals.append(builder.phi(vector))
            totals[-1].add_incoming(zero, entry)
            totals[-1].add_incoming(updated[r][j], loop)
    adding = builder.icmp_signed("!=", accumulate, _const(0))
    for index, total in enumerate(totals):
        r, j = divmod(index, nc)
        value = builder.fmul(builder.call(reduce_add, [ir.Constant(_F32, 0.0), total],
                                          fastmath=("reassoc",)), alpha)
        place = builder.gep(c, [builder.add(builder.mul(_const(r), ldc), _const(j))])
        before = builder.select(adding, builder.load(place, align=4), ir.Constant(_F32, 0.0))
        builder.store(builder.fadd(before, value), place, align=4)
    builder.ret_void()
    return fn


def _transpose_block(mod, vector) -> None:
    """``transpose(source, source_stride, target, target_stride)``: a ``lanes x lanes``
    block of floats, transposed (addresses and strides as integers, strides in floats):
    the rows load as vectors, log2(lanes) rounds of shuffles interleave them, the
    columns store as vectors."""
    lanes = vector.count
    fn = ir.Function(mod, ir.FunctionType(ir.VoidType(), [_I64] * 4), name="transpose")
    source, source_stride, target, target_stride = fn.args
    builder = ir.IRBuilder(fn.append_basic_block("entry"))
    fp = _F32.as_pointer()
    source, target = builder.inttoptr(source, fp), builder.inttoptr(target, fp)
    rows = [builder.load(builder.bitcast(builder.gep(source, [builder.mul(_const(r), source_stride)]),
                                         vector.as_pointer()), align=4) for r in range(lanes)]
    # round with distance d: row r (r's d bit clear) and row r + d exchange blocks of d
    # lanes, so after all rounds rows[r][c] holds the block's element (c, r)
    distance = lanes // 2
    while distance:
        merged = list(rows)
        for r in range(lanes):
            if r & distance:
                continue
            low, high = rows[r], rows[r + distance]
            first = [c if not c & distance else c - distance + lanes for c in range(lanes)]
            second = [c + distance if not c & distance else c + lanes for c in range(lanes)]
            merged[r] = builder.shuffle_vector(low, high, ir.Constant(
                ir.VectorType(_I32, lanes), first))
            merged[r + distance] = builder.shuffle_vector(low, high, ir.Constant(
                ir.VectorType(_I32, lanes), second))
        rows = merged
        distance //= 2
    for r, row in enumerate(rows):
        place = builder.gep(target, [builder.mul(_const(r), target_stride)])
        builder.store(row, builder.bitcast(place, vector.as_pointer()), align=4)
    builder.ret_void()


def _add(builder, c, x):
    return builder.fadd(c, x)


def _add_relu(builder, c, x):
    """max(c + x, 0), NaN kept, as ``Relu``'s kernel keeps it."""
    total = builder.fadd(c, x)
    zero = ir.Constant(total.type, None)
    return builder.select(builder.fcmp_ordered("<", total, zero), zero, total)


def _gate(builder, c, y):
    """c * (y > 0 ? 1 : 0): ``dy * cast(y > 0)``, a ReLU's gradient, as its ops compute
    it (a NaN y closes the gate, and 0 * inf stays NaN)."""
    zero = ir.Constant(c.type, None)
    one = ir.Constant(c.type, [1.0] * c.type.count)
    return builder.fmul(c, builder.select(builder.fcmp_ordered(">", y, zero), one, zero))


# name -> how a vector of C and one of the operand make the new vector of C.  Each is
# the same float32 arithmetic as the ops it replaces, so the same bits.
EPILOGUES = {"bias": _add, "bias_relu": _add_relu, "relu_gate": _gate}


def _epilogue(mod, intrinsics, vector, max_nv: int, name: str, combine) -> None:
    """``name(c, ldc, rows, columns, x, ldx)`` (integers; addresses, strides in floats):
    ``c[r, j] = combine(c[r, j], x[r, j])`` for r < rows, j < columns <= lanes * max_nv,
    row r of x ``r * ldx`` floats after x (0: one row for all, a bias)."""
    _, masked_load, masked_store = intrinsics
    lanes = vector.count
    fn = ir.Function(mod, ir.FunctionType(ir.VoidType(), [_I64] * 6), name=name)
    c, ldc, rows, columns, x, ldx = fn.args
    entry, loop, done = (fn.append_basic_block(n) for n in ("entry", "row", "done"))
    builder = ir.IRBuilder(entry)
    fp = _F32.as_pointer()
    c, x = builder.inttoptr(c, fp), builder.inttoptr(x, fp)
    masks = [_lanes_below(builder, lanes, builder.sub(columns, _const(lanes * v)))
             for v in range(max_nv)]
    builder.cbranch(builder.icmp_signed(">", rows, _const(0)), loop, done)

    builder.position_at_end(loop)
    r = builder.phi(_I64, name="r")
    r.add_incoming(_const(0), entry)
    row, operand_row = builder.gep(c, [builder.mul(r, ldc)]), builder.gep(x, [builder.mul(r, ldx)])
    for v, mask in enumerate(masks):
        place = builder.gep(row, [_const(lanes * v)])
        operand = _load(builder, masked_load, vector,
                        builder.gep(operand_row, [_const(lanes * v)]), mask)
        value = combine(builder, _load(builder, masked_load, vector, place, mask), operand)
        _store(builder, masked_store, value, place, mask)
    following = builder.add(r, _const(1))
    r.add_incoming(following, loop)
    builder.cbranch(builder.icmp_signed("<", following, rows), loop, done)

    builder.position_at_end(done)
    builder.ret_void()
