"""The optimizers' fused updates, as TF1's ``training_ops``: ApplyGradientDescent,
ApplyMomentum, ApplyAdam, ApplyAdagrad(V2), ApplyRMSProp, ApplyCenteredRMSProp,
ApplyAdadelta, ApplyFtrl(V2) and the proximal ones, with TF's input order and attrs
(their ``SparseApply<X>`` twins: ``sparse_training.py``).

Input 0 (and the slots after it) are *references* to variables (``OpDef.ref_inputs``,
so the op runs where its variable lives and updates it in place under its lock, see
``runtime/resources.py``); the hyper-parameters are scalars of the variable's dtype;
the output, when fetched, is the variable's new value.  ``ds.train``'s optimizers build
these; the formulas (``kernels/reference/training.py`` is the oracle, ``cpu/`` and
``cuda/training.py`` make one pass over the arrays):

* ApplyGradientDescent(var, alpha, delta): ``var -= alpha * delta``
* ApplyMomentum(var, accum, lr, grad, momentum): ``accum = accum * momentum + grad``;
  ``var -= lr * accum`` (Nesterov: ``var -= grad * lr + accum * momentum * lr``)
* ApplyAdam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
  ``alpha = lr * sqrt(1 - beta2_power) / (1 - beta1_power)``;
  ``m += (grad - m) * (1 - beta1)``; ``v += (grad**2 - v) * (1 - beta2)``;
  ``var -= m * alpha / (sqrt(v) + epsilon)``
* ApplyAdagrad(var, accum, lr, grad): ``accum += grad**2`` (unless ``update_slots`` is
  false); ``var -= grad * lr / sqrt(accum)``
* ApplyAdagradV2(var, accum, lr, epsilon, grad) (TF2's Keras Adagrad): as ApplyAdagrad,
  with ``var -= grad * lr / (sqrt(accum) + epsilon)``
* ApplyRMSProp(var, ms, mom, lr, rho, momentum, epsilon, grad):
  ``ms += (grad**2 - ms) * (1 - rho)``;
  ``mom = mom * momentum + grad * lr / sqrt(ms + epsilon)``; ``var -= mom``
* ApplyCenteredRMSProp(var, mg, ms, mom, lr, rho, momentum, epsilon, grad): as
  ApplyRMSProp, with ``mg += (grad - mg) * (1 - rho)`` and ``ms - mg**2 + epsilon`` under
  the root
* ApplyAdadelta(var, accum, accum_update, lr, rho, epsilon, grad):
  ``accum = accum * rho + grad**2 * (1 - rho)``;
  ``update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad``;
  ``var -= update * lr``; ``accum_update = accum_update * rho + update**2 * (1 - rho)``
* ApplyFtrl(var, accum, linear, grad, lr, l1, l2, lr_power) (FTRL-proximal; note the
  gradient before the scalars, as TF's): ``new = accum + grad**2``;
  ``linear += grad - (new**-lr_power - accum**-lr_power) / lr * var``;
  ``var = (sign(linear) * l1 - linear) / (new**-lr_power / lr + 2 * l2)`` where
  ``|linear| > l1``, else 0; ``accum = new`` (``**-0.5`` as square roots, as TF's)
* ApplyFtrlV2(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power): as
  ApplyFtrl with ``grad + 2 * l2_shrinkage * var`` in ``linear``'s update
* ApplyProximalGradientDescent(var, alpha, l1, l2, delta) (FOBOS): ``v = var - delta *
  alpha``; ``var = sign(v) * max(|v| - alpha * l1, 0) / (1 + l2 * alpha)`` (with ``l1``
  0: ``v / (1 + l2 * alpha)``)
* ApplyProximalAdagrad(var, accum, lr, l1, l2, grad): ``accum += grad**2``; the same
  step with the rate ``lr / sqrt(accum)`` in place of ``alpha``
* ApplyAdagradDA(var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1,
  l2, global_step) (Adagrad dual averaging; ``global_step`` an int64 scalar, the step
  count ``t``): ``g += grad``; ``gg += grad**2``;
  ``var = -lr * sign(g) * max(|g| - t * l1, 0) / (l2 * t * lr + sqrt(gg))`` (with ``l1``
  0: ``-lr * g / (...)``): the value follows from the slots, whatever it was

FTRL's ``multiply_linear_by_lr`` (TF's other scaling of ``linear``) is refused, true, with
``UnimplementedError`` naming the node: the formulas above are its false.
"""

from __future__ import annotations

from ..dtypes import int64
from ..errors import UnimplementedError
from ..graph import Tensor, convert_to_tensor
from .registry import InferError, OpDef, register_op
from .state import variable_ref

__all__ = ["apply_gradient_descent", "apply_momentum", "apply_adam", "apply_adagrad",
           "apply_adagrad_v2",
           "apply_rms_prop", "apply_centered_rms_prop", "apply_adadelta", "apply_ftrl",
           "apply_ftrl_v2", "apply_proximal_gradient_descent", "apply_proximal_adagrad",
           "apply_adagrad_da", "STEP_INPUTS",
           "TRAINING_OPS", "FLAG_ATTRS", "attr_defaults", "refuse_linear_by_lr",
           "MATMUL_GRADIENT_DESCENT", "MATMUL_ADAM"]

# var -= alpha * MatMul(a, b), and Adam's update with MatMul(a, b) as its gradient: made
# only by optimizer/gemm_updates.py
MATMUL_GRADIENT_DESCENT = "_MatMulApplyGradientDescent"
MATMUL_ADAM = "_MatMulApplyAdam"

# op type -> (input names, how many leading inputs are variable references)
TRAINING_OPS = {
    "ApplyGradientDescent": (("var", "alpha", "delta"), 1),
    "ApplyMomentum": (("var", "accum", "lr", "grad", "momentum"), 2),
    "ApplyAdam": (("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2",
                   "epsilon", "grad"), 3),
    "ApplyAdagrad": (("var", "accum", "lr", "grad"), 2),
    "ApplyAdagradV2": (("var", "accum", "lr", "epsilon", "grad"), 2),
    "ApplyRMSProp": (("var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"), 3),
    "ApplyCenteredRMSProp": (("var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon",
                              "grad"), 4),
    "ApplyAdadelta": (("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"), 3),
    "ApplyFtrl": (("var", "accum", "linear", "grad", "lr", "l1", "l2", "lr_power"), 3),
    "ApplyFtrlV2": (("var", "accum", "linear", "grad", "lr", "l1", "l2", "l2_shrinkage",
                     "lr_power"), 3),
    "ApplyProximalGradientDescent": (("var", "alpha", "l1", "l2", "delta"), 1),
    "ApplyProximalAdagrad": (("var", "accum", "lr", "l1", "l2", "grad"), 2),
    "ApplyAdagradDA": (("var", "gradient_accumulator", "gradient_squared_accumulator", "grad",
                        "lr", "l1", "l2", "global_step"), 3),
}
# op type -> (the boolean attr its formula depends on, that attr's default)
FLAG_ATTRS = {"ApplyMomentum": ("use_nesterov", False), "ApplyAdam": ("use_nesterov", False),
              "ApplyAdagrad": ("update_slots", True), "ApplyAdagradV2": ("update_slots", True)}
# FTRL's other form: TF scales linear by lr (not implemented: refused when true)
LINEAR_BY_LR = "multiply_linear_by_lr"
_TENSOR_INPUTS = {"delta", "grad"}      # shaped like the variable; the rest are scalars
STEP_INPUTS = frozenset({"global_step"})    # int64 scalars, whatever the variable's dtype


def _infer(op_type):
    names, num_refs = TRAINING_OPS[op_type]

    def infer(inputs, attrs, node):
        refuse_linear_by_lr(attrs, node, op_type)
        var = inputs[0]
        if not var.dtype.is_floating:
            raise TypeError(f"Op '{node}' ({op_type}) updates floating-point variables, not "
                            f"{var.dtype.name} '{var.name}'.")
        for name, t in zip(names[1:], inputs[1:]):
            if name in STEP_INPUTS:
                check_step(t, name, node, op_type)
                continue
            if t.dtype != var.dtype:
                raise TypeError(f"Op '{node}' ({op_type}): input {name} '{t.name}' is "
                                f"{t.dtype.name}, but variable '{var.name}' is "
                                f"{var.dtype.name}.")
            shaped = name in _TENSOR_INPUTS or names.index(name) < num_refs
            if shaped and not t.shape.is_compatible_with(var.shape):
                raise InferError(f"Op '{node}' ({op_type}): {name} '{t.name}' has shape "
                                 f"{t.shape}, variable '{var.name}' {var.shape}.")
            if not shaped and not t.shape.is_compatible_with(()):
                raise InferError(f"Op '{node}' ({op_type}): {name} '{t.name}' must be a "
                                 f"scalar, got shape {t.shape}.")
        return var.dtype, var.shape
    return infer


def check_step(t, name, node, op_type) -> None:
    """TypeError unless ``t`` (AdagradDA's ``global_step``) is int64, InferError unless
    it may be a scalar."""
    if t.dtype != int64:
        raise TypeError(f"Op '{node}' ({op_type}): input {name} '{t.name}' must be int64, "
                        f"not {t.dtype.name}.")
    if not t.shape.is_compatible_with(()):
        raise InferError(f"Op '{node}' ({op_type}): {name} '{t.name}' must be a scalar, got "
                         f"shape {t.shape}.")


def refuse_linear_by_lr(attrs, node, op_type) -> None:
    """UnimplementedError for FTRL's ``multiply_linear_by_lr`` true."""
    if attrs.get(LINEAR_BY_LR):
        raise UnimplementedError(f"Node '{node}' ({op_type}): {LINEAR_BY_LR}=true is not "
                                 f"supported yet; devsession implements FTRL with it false.",
                                 node)


def attr_defaults(op_type: str) -> dict:
    """The attrs of dense ``op_type`` (and of its SparseApply twin) and their defaults."""
    attrs = {"use_locking": False}
    if op_type in FLAG_ATTRS:
        attrs[FLAG_ATTRS[op_type][0]] = FLAG_ATTRS[op_type][1]
    if op_type.startswith("ApplyFtrl"):
        attrs[LINEAR_BY_LR] = False
    return attrs


for _op_type, (_names, _num_refs) in TRAINING_OPS.items():
    _attrs = attr_defaults(_op_type)
    register_op(OpDef(_op_type, _infer(_op_type), len(_names),
                      ref_inputs=tuple(range(_num_refs)), stateful=True, attr_defaults=_attrs))


def _made_by_the_optimizer(inputs, attrs, node):
    raise TypeError(f"Op '{node}': {MATMUL_GRADIENT_DESCENT} and {MATMUL_ADAM} are made by "
                    f"the optimizer, not by graphs.")


_PRODUCT_ATTRS = {"transpose_a": False, "transpose_b": False}
# inputs: var, alpha, a, b; attrs transpose_a, transpose_b (the product's)
register_op(OpDef(MATMUL_GRADIENT_DESCENT, _made_by_the_optimizer, 4, ref_inputs=(0,),
                  stateful=True, attr_defaults=_PRODUCT_ATTRS))
# inputs: ApplyAdam's but the gradient, then a, b; attrs ApplyAdam's and the product's
register_op(OpDef(MATMUL_ADAM, _made_by_the_optimizer, 11, ref_inputs=(0, 1, 2),
                  stateful=True, attr_defaults={**_PRODUCT_ATTRS, "use_locking": False,
                                                "use_nesterov": False}))


def _build(op_type, refs, values, attrs, name) -> Tensor:
    targets = [variable_ref(r, op_type) for r in refs]
    graph = targets[0].graph
    dtype = targets[0].dtype
    names = TRAINING_OPS[op_type][0][len(refs):]
    tensors = [convert_to_tensor(v, dtype_hint=int64 if n in STEP_INPUTS else dtype,
                                 graph=graph) for n, v in zip(names, values)]
    return graph.create_op(op_type, targets + tensors, attrs, name=name or op_type).outputs[0]


def apply_gradient_descent(var, alpha, delta, use_locking=False, name=None) -> Tensor:
    """``var -= alpha * delta`` in place; the variable's new value."""
    return _build("ApplyGradientDescent", [var], [alpha, delta],
                  {"use_locking": bool(use_locking)}, name)


def apply_momentum(var, accum, lr, grad, momentum, use_locking=False, use_nesterov=False,
                   name=None) -> Tensor:
    """TF's ApplyMomentum: ``accum = accum * momentum + grad``, then the step on var."""
    return _build("ApplyMomentum", [var, accum], [lr, grad, momentum],
                  {"use_locking": bool(use_locking), "use_nesterov": bool(use_nesterov)}, name)


def apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
               use_locking=False, use_nesterov=False, name=None) -> Tensor:
    """TF's ApplyAdam (see the module docstring)."""
    return _build("ApplyAdam", [var, m, v],
                  [beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad],
                  {"use_locking": bool(use_locking), "use_nesterov": bool(use_nesterov)}, name)


def apply_adagrad(var, accum, lr, grad, use_locking=False, update_slots=True,
                  name=None) -> Tensor:
    """TF's ApplyAdagrad: ``accum += grad**2``, then ``var -= grad * lr / sqrt(accum)``."""
    return _build("ApplyAdagrad", [var, accum], [lr, grad],
                  {"use_locking": bool(use_locking), "update_slots": bool(update_slots)}, name)


def apply_adagrad_v2(var, accum, lr, epsilon, grad, use_locking=False, update_slots=True,
                     name=None) -> Tensor:
    """TF's ApplyAdagradV2: ApplyAdagrad with ``epsilon`` added to the root."""
    return _build("ApplyAdagradV2", [var, accum], [lr, epsilon, grad],
                  {"use_locking": bool(use_locking), "update_slots": bool(update_slots)}, name)


def apply_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad, use_locking=False,
                   name=None) -> Tensor:
    """TF's ApplyRMSProp (see the module docstring)."""
    return _build("ApplyRMSProp", [var, ms, mom], [lr, rho, momentum, epsilon, grad],
                  {"use_locking": bool(use_locking)}, name)


def apply_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad,
                            use_locking=False, name=None) -> Tensor:
    """TF's ApplyCenteredRMSProp: RMSProp over the gradient's estimated variance."""
    return _build("ApplyCenteredRMSProp", [var, mg, ms, mom], [lr, rho, momentum, epsilon, grad],
                  {"use_locking": bool(use_locking)}, name)


def apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad, use_locking=False,
                   name=None) -> Tensor:
    """TF's ApplyAdadelta (see the module docstring)."""
    return _build("ApplyAdadelta", [var, accum, accum_update], [lr, rho, epsilon, grad],
                  {"use_locking": bool(use_locking)}, name)


def apply_ftrl(var, accum, linear, grad, lr, l1, l2, lr_power, use_locking=False,
               name=None) -> Tensor:
    """TF's ApplyFtrl (see the module docstring)."""
    return _build("ApplyFtrl", [var, accum, linear], [grad, lr, l1, l2, lr_power],
                  {"use_locking": bool(use_locking)}, name)


def apply_ftrl_v2(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power,
                  use_locking=False, name=None) -> Tensor:
    """TF's ApplyFtrlV2: ApplyFtrl with shrinkage-type L2 (see the module docstring)."""
    return _build("ApplyFtrlV2", [var, accum, linear],
                  [grad, lr, l1, l2, l2_shrinkage, lr_power],
                  {"use_locking": bool(use_locking)}, name)


def apply_proximal_gradient_descent(var, alpha, l1, l2, delta, use_locking=False,
                                    name=None) -> Tensor:
    """TF's ApplyProximalGradientDescent (see the module docstring)."""
    return _build("ApplyProximalGradientDescent", [var], [alpha, l1, l2, delta],
                  {"use_locking": bool(use_locking)}, name)


def apply_proximal_adagrad(var, accum, lr, l1, l2, grad, use_locking=False,
                           name=None) -> Tensor:
    """TF's ApplyProximalAdagrad (see the module docstring)."""
    return _build("ApplyProximalAdagrad", [var, accum], [lr, l1, l2, grad],
                  {"use_locking": bool(use_locking)}, name)


def apply_adagrad_da(var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1,
                     l2, global_step, use_locking=False, name=None) -> Tensor:
    """TF's ApplyAdagradDA: the slots accumulate ``grad`` and ``grad**2``, the variable
    is their closed form at step ``global_step`` (see the module docstring)."""
    return _build("ApplyAdagradDA", [var, gradient_accumulator, gradient_squared_accumulator],
                  [grad, lr, l1, l2, global_step], {"use_locking": bool(use_locking)}, name)
