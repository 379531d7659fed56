"""TF's rank-generic and rank-named spellings of convolution and pooling, built from the
ops devsession has (``nn_conv.py``'s MaxPool/AvgPool/Conv2D/Conv2DBackpropInput and
``nn_conv3d.py``'s 3-D ops), as TF's Python builds them:

* ``max_pool2d``/``avg_pool2d``: one MaxPool/AvgPool;
* ``max_pool1d``/``avg_pool1d``: ExpandDims, the 2-D op over a height of 1, Squeeze
  (NWC; the pooling node named after the ``MaxPool1d``/``AvgPool1D`` scope, as TF's);
* ``max_pool_v2``/``avg_pool_v2`` (TF2's ``tf.nn.max_pool``): the 1-, 2- or 3-D
  pooling the input's static rank names;
* ``pool``: N-D max or average pooling over ``window_shape``; a ``dilation_rate``
  above 1 (VALID only, strides 1, as TF) pools a SpaceToBatchND of the input and
  puts the result back with BatchToSpaceND (TF's ``with_space_to_batch``);
* ``convolution``: Conv2D, Conv3D or ``conv1d`` by the filter's rank, the dilations
  as the op's attr (TF builds a dilated one between SpaceToBatchND and BatchToSpaceND;
  the values are the same);
* ``atrous_conv2d``: TF's, ``convolution`` with ``rate`` as the ``dilation_rate`` of both
  spatial dims (one int, or one per dim), so its nodes take the ``convolution`` scope's
  names (and count among them) as TF's do;
* ``conv1d_transpose``: a Conv2DBackpropInput over a height of 1; ``conv_transpose``:
  the 1-, 2- or 3-D transposed convolution ``output_shape``'s length names.

Build-time errors are TF's ValueErrors (ranks it cannot tell, window/stride list
lengths, a dilation below 1, strides above 1 with a dilation above 1, SAME with a
dilation above 1 in ``pool``).
"""

from __future__ import annotations

import numpy as np

from ..graph import Tensor, constant_value, convert_to_tensor, name_scope
from .array import concat, expand_dims, squeeze
from .array_operands import int_operand
from .common import make_op
from .nn_channels_first import format_name, is_channels_first
from .nn_conv import (_padding, avg_pool, conv1d, conv2d_transpose, conv_attrs, max_pool,
                      nhwc_list)
from .nn_conv3d import _conv_attrs as conv3d_attrs
from .nn_conv3d import _window5, conv3d_transpose
from .space_depth import batch_to_space_nd, space_to_batch_nd

__all__ = ["max_pool2d", "avg_pool2d", "max_pool1d", "avg_pool1d", "max_pool_v2",
           "avg_pool_v2", "pool", "convolution", "atrous_conv2d", "conv1d_transpose",
           "conv_transpose"]

_POOL_OPS = {("MAX", 2): "MaxPool", ("AVG", 2): "AvgPool", ("MAX", 3): "MaxPool3D",
             ("AVG", 3): "AvgPool3D"}


def sequence(value, n: int, channel_index: int, what: str) -> list:
    """TF's ``_get_sequence``: an int or a list of 1, ``n`` or ``n + 2`` as the full
    ``n + 2`` list, channels first (``channel_index`` 1) or last."""
    values = [1] if value is None else [value] if np.ndim(value) == 0 else list(value)
    values = [int(v) for v in values]
    if len(values) == n + 2:
        return values
    if len(values) == 1:
        values = values * n
    elif len(values) != n:
        raise ValueError(f"{what} should be of length 1, {n} or {n + 2}. Received: "
                         f"{what}={value!r} of length {len(values)}")
    return [1, 1] + values if channel_index == 1 else [1] + values + [1]


def _pool_nd(op_type: str, x: Tensor, ksize, strides, padding, data_format, name) -> Tensor:
    """One MaxPool/AvgPool (NHWC; NCHW between two transposes) or MaxPool3D/AvgPool3D
    node."""
    if is_channels_first(data_format):
        return (max_pool if op_type == "MaxPool" else avg_pool)(
            x, ksize, strides, padding, data_format, name)
    if op_type.endswith("3D"):
        data_format = format_name(data_format, "NDHWC")
        attrs = {"ksize": _window5(ksize, "ksize", data_format),
                 "strides": _window5(strides, "strides", data_format),
                 "padding": _padding(padding, op_type), "data_format": data_format}
    else:
        attrs = {"ksize": nhwc_list(ksize, "ksize", op_type),
                 "strides": nhwc_list(strides, "strides", op_type),
                 "padding": _padding(padding, op_type), "data_format": format_name(data_format)}
    return make_op(op_type, [x], attrs, name)


def _exact(op_type: str, x: Tensor, attrs: dict, scope: str) -> Tensor:
    """One ``op_type`` node named after the open ``scope`` (as TF's builders name it)."""
    return x.graph.create_op(op_type, [x], attrs, name=scope.rstrip("/"),
                             exact_name=True).outputs[0]


def max_pool2d(input, ksize, strides, padding, data_format="NHWC",  # noqa: A002
               name=None) -> Tensor:
    """``tf.nn.max_pool2d``: one MaxPool of an NHWC ``input`` (``ksize``/``strides`` an
    int or a list of 1, 2 or 4)."""
    return _pool_nd("MaxPool", convert_to_tensor(input), ksize, strides, padding,
                    data_format, name)


def avg_pool2d(value=None, ksize=None, strides=None, padding=None,  # noqa: A002
               data_format="NHWC", name=None, input=None) -> Tensor:
    """``tf.nn.avg_pool2d``: one AvgPool of an NHWC ``value`` (SAME averages the
    elements inside the input only)."""
    return _pool_nd("AvgPool", convert_to_tensor(input if value is None else value), ksize,
                    strides, padding, data_format, name)


def _pool1d(op_type: str, scope_name: str):
    def build(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
        if data_format not in (None, "NWC"):
            raise ValueError(f"{scope_name}: data_format must be 'NWC' (devsession's "
                             f"kernels take channels last), got {data_format!r}.")
        with name_scope(name or scope_name) as scope:
            x = expand_dims(convert_to_tensor(input, name="input"), 1)
            attrs = {"ksize": tuple([1] + sequence(ksize, 1, 2, "ksize")),
                     "strides": tuple([1] + sequence(strides, 1, 2, "strides")),
                     "padding": _padding(padding, op_type), "data_format": "NHWC"}
            return squeeze(_exact(op_type, x, attrs, scope), [1])
    build.__name__ = "max_pool1d" if op_type == "MaxPool" else "avg_pool1d"
    build.__doc__ = (f"``tf.nn.{build.__name__}``: {op_type} over windows of an NWC "
                     f"tensor ``[batch, width, channels]`` (a height of 1 added and "
                     f"removed around the 2-D op).")
    return build


max_pool1d = _pool1d("MaxPool", "MaxPool1d")
avg_pool1d = _pool1d("AvgPool", "AvgPool1D")


def _spatial_rank(x: Tensor, data_format, what: str) -> int:
    if x.shape.ndims is None:
        raise ValueError(f"{what}: `input` must have a static rank of 3, 4 or 5; "
                         f"'{x.name}' has an unknown rank.")
    n = x.shape.ndims - 2
    if n not in (1, 2, 3):
        raise ValueError(f"{what}: `input.shape.rank` must be 3, 4 or 5. Received: "
                         f"input.shape={x.shape} of rank {x.shape.ndims}.")
    return n


def _pool_v2(pooling_type: str):
    def build(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
        public = build.__name__
        x = convert_to_tensor(input)
        n = _spatial_rank(x, data_format, public)
        channel_index = 1 if data_format and data_format.startswith("NC") else n + 1
        ksize = sequence(ksize, n, channel_index, "ksize")
        strides = sequence(strides, n, channel_index, "strides")
        if n == 1:
            return (max_pool1d if pooling_type == "MAX" else avg_pool1d)(
                x, ksize, strides, padding, data_format or "NWC", name)
        return _pool_nd(_POOL_OPS[pooling_type, n], x, ksize, strides, padding,
                        data_format, name)
    build.__name__ = "max_pool_v2" if pooling_type == "MAX" else "avg_pool_v2"
    build.__doc__ = (f"TF2's ``tf.nn.{build.__name__[:-3]}`` (TF1's "
                     f"``tf.nn.{build.__name__}``): the 1-, 2- or 3-D "
                     f"{pooling_type.lower()} pooling that ``input``'s static rank names.")
    return build


max_pool_v2 = _pool_v2("MAX")
avg_pool_v2 = _pool_v2("AVG")


def _strides_and_rates(n: int, strides, dilation_rate, what: str) -> tuple:
    """TF's ``_get_strides_and_dilation_rate``: ``n`` ints each, strides above 1 and a
    dilation above 1 not both."""
    def spatial(value, key):
        values = [1] * n if value is None else [int(v) for v in np.atleast_1d(value)]
        if len(values) != n:
            raise ValueError(f"{what}: len({key}) must be {n}, got {list(values)}.")
        if min(values) < 1:
            raise ValueError(f"{what}: all values of {key} must be positive, got {values}.")
        return values
    strides, rates = spatial(strides, "strides"), spatial(dilation_rate, "dilation_rate")
    if max(strides) > 1 and max(rates) > 1:
        raise ValueError(f"strides > 1 not supported in conjunction with dilation_rate > 1 "
                         f"(strides={strides}, dilation_rate={rates}).")
    return strides, rates


def pool(input, window_shape, pooling_type, padding, dilation_rate=None,  # noqa: A002
         strides=None, name=None, data_format=None, dilations=None) -> Tensor:
    """``tf.nn.pool``: ``pooling_type`` ("MAX" or "AVG") over windows of
    ``window_shape`` (1 to 3 spatial dims, channels last), as TF.  Raises ValueError for
    a window of other length, strides larger than the window, SAME with a dilation
    above 1, or a dilated input whose spatial dims are not known statically."""
    if dilation_rate is not None and dilations is not None:
        raise ValueError("pool takes dilation_rate= or dilations=, not both.")
    dilation_rate = dilations if dilation_rate is None else dilation_rate
    pooling_type = str(pooling_type).upper()
    window = [int(k) for k in np.atleast_1d(window_shape)]
    n = len(window)
    if n not in (1, 2, 3):
        raise ValueError(f"`len(window_shape)` must be 1, 2, or 3. Received: "
                         f"window_shape={window_shape} of length {n}")
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"{n}-D {pooling_type} pooling is not supported.")
    if data_format not in (None, "NWC", "NHWC", "NDHWC"):
        raise ValueError(f"pool: data_format {data_format!r} is not supported; devsession "
                         f"pools channels-last tensors.")
    padding = _padding(padding, "pool")
    with name_scope(name or f"{pooling_type.lower()}_pool") as scope:
        x = convert_to_tensor(input, name="input")
        if x.shape.ndims is not None and x.shape.ndims != n + 2:
            raise ValueError(f"Shape {x.shape} must have rank {n + 2}")
        strides, rates = _strides_and_rates(n, strides, dilation_rate, "pool")
        if padding == "SAME" and max(rates) > 1:
            raise ValueError(f"pooling with 'SAME' padding is not implemented for "
                             f"`dilation_rate` > 1. Received: padding={padding} and "
                             f"dilation_rate={rates}")
        if any(s > k for s, k in zip(strides, window)):
            raise ValueError(f"`strides` > `window_shape` not supported due to "
                             f"inconsistency between CPU and GPU implementations. "
                             f"Received: strides={strides} and window_shape={window}")

        def op(value):
            if n == 1:
                attrs = {"ksize": (1, 1, window[0], 1), "strides": (1, 1, strides[0], 1),
                         "padding": padding, "data_format": "NHWC"}
                op_type = _POOL_OPS[pooling_type, 2]
                return squeeze(_exact(op_type, expand_dims(value, 1), attrs, scope), [1])
            ksize, steps = [1, *window, 1], [1, *strides, 1]
            op_type = _POOL_OPS[pooling_type, n]
            attrs = ({"ksize": tuple(ksize), "strides": tuple(steps), "padding": padding,
                      "data_format": "NDHWC" if n == 3 else "NHWC"})
            return _exact(op_type, value, attrs, scope)
        if max(rates) == 1:
            return op(x)
        return _with_space_to_batch(x, rates, op)


def _with_space_to_batch(x: Tensor, rates: list, op) -> Tensor:
    """``op`` (a VALID window op) dilated by ``rates``: each of the ``rates`` interleaved
    sub-grids becomes its own batch entry (SpaceToBatchND, the end padded to a multiple
    of the rate), ``op`` runs on them, and BatchToSpaceND interleaves the results back,
    cropping that padding; TF's ``with_space_to_batch`` for VALID padding."""
    sizes = x.shape.dims[1:1 + len(rates)] if x.shape.ndims is not None else None
    if sizes is None or None in sizes:
        raise ValueError(f"pool: a dilation_rate above 1 needs the spatial dims of "
                         f"'{x.name}' known when the graph is built, got shape {x.shape}.")
    extra = [(-size) % rate for size, rate in zip(sizes, rates)]
    block = np.array(rates, np.int32)
    batched = space_to_batch_nd(x, block, np.array([[0, e] for e in extra], np.int32))
    return batch_to_space_nd(op(batched), block, np.array([[0, e] for e in extra], np.int32))


def convolution(input, filter=None, padding=None, strides=None,  # noqa: A002  (TF's names)
                dilation_rate=None, name=None, data_format=None, filters=None,
                dilations=None) -> Tensor:
    """``tf.nn.convolution``: a 1-, 2- or 3-D convolution (by the filter's rank, else the
    input's) with ``strides`` and ``dilation_rate`` (1, n or n + 2 ints), one Conv2D or
    Conv3D node named after the ``convolution`` scope (``conv1d``'s nodes for 1-D).
    ValueError where TF's: neither rank known, strides and a dilation both above 1."""
    filter = filters if filter is None else filter  # noqa: A001
    if filter is None:
        raise ValueError("convolution needs a filter (filters=...).")
    if dilation_rate is not None and dilations is not None:
        raise ValueError("convolution takes dilation_rate= or dilations=, not both.")
    dilation_rate = dilations if dilation_rate is None else dilation_rate
    with name_scope(name or "convolution") as scope:
        x = convert_to_tensor(input, name="input")
        f = convert_to_tensor(filter, dtype_hint=x.dtype, name="filters")
        n = (f.shape.ndims or x.shape.ndims or 0) - 2
        if f.shape.ndims is None and x.shape.ndims is None:
            raise ValueError("When `num_spatial_dims` is not set, one of `input.shape.rank` "
                             "or `filters.shape.rank` must be known.")
        if n not in (1, 2, 3):
            raise ValueError(f"`num_spatial_dims` must be 1, 2, or 3. Received: "
                             f"num_spatial_dims={n}.")
        channels_first = bool(data_format) and data_format.startswith("NC")
        channel_index = 1 if channels_first else n + 1
        step = sequence(strides, n, channel_index, "strides")
        rate = sequence(dilation_rate, n, channel_index, "dilations")
        spatial = slice(2, None) if channels_first else slice(1, -1)
        if min(rate[spatial]) < 1:
            raise ValueError(f"all values of `dilation_rate` must be positive. Received: "
                             f"dilation_rate={np.array(rate[spatial])}")
        if max(step[spatial]) > 1 and max(rate[spatial]) > 1:
            raise ValueError(f"strides > 1 not supported in conjunction with dilation_rate "
                             f"> 1 (strides={step[spatial]}, "
                             f"dilation_rate={rate[spatial]}).")
        if n == 1:
            return conv1d(x, f, step, padding, data_format=data_format, dilations=rate,
                          name=scope)
        if n == 2:
            attrs = conv_attrs(step, padding, data_format, rate, scope.rstrip("/"))
            op_type = "Conv2D"
        else:
            attrs = conv3d_attrs(step, padding, data_format, rate, scope.rstrip("/"))
            op_type = "Conv3D"
        return x.graph.create_op(op_type, [x, f], attrs, name=scope.rstrip("/"),
                                 exact_name=True).outputs[0]


def atrous_conv2d(value, filters, rate, padding, name=None) -> Tensor:
    """TF1's ``tf.nn.atrous_conv2d``: ``convolution`` of stride 1 whose filter taps are
    ``rate`` pixels apart, ``rate`` one int or [height rate, width rate] (TF broadcasts it
    to two); one Conv2D named after the ``convolution`` scope (or ``name``).  ValueError
    for a rate below 1 or of more than two values."""
    try:
        rates = np.broadcast_to(np.asarray(rate), (2,))
    except ValueError:
        raise ValueError(f"atrous_conv2d: rate must be one int or two, got {rate!r}.") from None
    return convolution(value, filters, padding, dilation_rate=rates, name=name)


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NWC", dilations=None, name=None) -> Tensor:
    """``tf.nn.conv1d_transpose``: the gradient of ``conv1d`` with respect to its input,
    run forward (a Conv2DBackpropInput over a height of 1, named after the scope);
    ``filters`` is ``[width, output channels, input channels]``, ``output_shape`` 3
    ints [batch, width, channels]."""
    if data_format not in (None, "NWC"):
        raise ValueError(f"`data_format` must be 'NWC' (devsession's kernels take channels "
                         f"last). Received: data_format={data_format}")
    with name_scope(name or "conv1d_transpose") as scope:
        x = convert_to_tensor(input, name="input")
        f = convert_to_tensor(filters, dtype_hint=x.dtype, name="filters")
        step = [1] + sequence(strides, 1, 2, "stride")
        rate = [1] + sequence(dilations, 1, 2, "dilations")
        x4, f4 = expand_dims(x, 1), expand_dims(f, 0)
        sizes = int_operand(output_shape, x.graph, name="output_shape")
        known = constant_value(sizes)
        if known is not None:
            values = [int(v) for v in np.asarray(known).reshape(-1)]
            if len(values) != 3:
                raise ValueError(f"conv1d_transpose: output_shape must have 3 elements, got "
                                 f"{values}.")
            sizes4 = np.array([values[0], 1, values[1], values[2]], np.asarray(known).dtype)
        else:
            sizes4 = concat([sizes[:1], np.array([1], sizes.dtype.np), sizes[1:]], 0)
        attrs = conv_attrs(step, padding, "NHWC", rate, scope.rstrip("/"))
        sizes4 = int_operand(sizes4, x.graph)
        dx = x.graph.create_op("Conv2DBackpropInput", [sizes4, f4, x4], attrs,
                               name=scope.rstrip("/"), exact_name=True).outputs[0]
        return squeeze(dx, [1])


def conv_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                   data_format=None, dilations=None, name=None) -> Tensor:
    """``tf.nn.conv_transpose``: ``conv1d_transpose``, ``conv2d_transpose`` or
    ``conv3d_transpose`` by the length of ``output_shape`` (3, 4 or 5)."""
    if isinstance(output_shape, Tensor):
        length = output_shape.shape.dims[0] if output_shape.shape.ndims == 1 else None
    else:
        length = len(output_shape)
    if length is None or not 3 <= length <= 5:
        raise ValueError(f"`output_shape` must be of length 3, 4 or 5. Received: "
                         f"output_shape={output_shape} of length {length}.")
    with name_scope(name or "conv_transpose") as scope:
        if length == 3:
            return conv1d_transpose(input, filters, output_shape, strides, padding,
                                    data_format or "NWC", dilations, name=scope)
        build = conv2d_transpose if length == 4 else conv3d_transpose
        n = length - 2
        channel_index = 1 if data_format and data_format.startswith("NC") else n + 1
        return build(input, filters, output_shape,
                     sequence(strides, n, channel_index, "strides"), padding=padding,
                     data_format=data_format or ("NHWC" if n == 2 else "NDHWC"),
                     dilations=sequence(dilations, n, channel_index, "dilations"),
                     name=scope)
