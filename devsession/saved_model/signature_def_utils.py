"""``tf.saved_model.signature_def_utils``: ``SignatureDef``\\ s, a SavedModel's named entry
points (what to feed, what to fetch, which TensorFlow Serving method), with TF's checks
and messages."""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor
from ..proto.meta_graph_pb2 import SignatureDef
from . import signature_constants as sc
from .utils import build_tensor_info

__all__ = ["build_signature_def", "predict_signature_def", "classification_signature_def",
           "regression_signature_def", "is_valid_signature"]


def build_signature_def(inputs=None, outputs=None, method_name=None,
                        defaults=None) -> SignatureDef:
    """A SignatureDef from ``{key: TensorInfo}`` maps; ``defaults``: ``{input key:
    constant Tensor}``, recorded as its TensorProto."""
    signature = SignatureDef()
    for key, info in (inputs or {}).items():
        signature.inputs[key].CopyFrom(info)
    for key, info in (outputs or {}).items():
        signature.outputs[key].CopyFrom(info)
    if method_name is not None:
        signature.method_name = method_name
    for key, default in (defaults or {}).items():
        if not isinstance(default, Tensor) or default.op.type != "Const":
            raise ValueError(f"Unable to convert object {default} of type "
                             f"{type(default)} to TensorProto.")
        signature.defaults[key].CopyFrom(default.op.node_def.attr["value"].tensor)
    return signature


def predict_signature_def(inputs, outputs) -> SignatureDef:
    """A Predict signature: ``{key: Tensor}`` inputs and outputs, neither empty."""
    if not inputs:
        raise ValueError("Prediction `inputs` cannot be None or empty.")
    if not outputs:
        raise ValueError("Prediction `outputs` cannot be None or empty.")
    return build_signature_def({k: build_tensor_info(t) for k, t in inputs.items()},
                               {k: build_tensor_info(t) for k, t in outputs.items()},
                               sc.PREDICT_METHOD_NAME)


def classification_signature_def(examples, classes, scores) -> SignatureDef:
    """A Classify signature: serialized ``tf.Example`` strings in; string ``classes``
    and/or float ``scores`` out."""
    if examples is None:
        raise ValueError("Classification `examples` cannot be None.")
    if not isinstance(examples, Tensor):
        raise ValueError(f"Classification `examples` must be a string Tensor. Found "
                         f"`examples` of type {type(examples)}.")
    if classes is None and scores is None:
        raise ValueError("Classification `classes` and `scores` cannot both be None.")
    _check_dtype(examples, dtypes.string, "Classification input tensors must be of type "
                                          "string.")
    outputs = {}
    if classes is not None:
        _check_dtype(classes, dtypes.string, "Classification classes must be of type "
                                             "string Tensor.")
        outputs[sc.CLASSIFY_OUTPUT_CLASSES] = build_tensor_info(classes)
    if scores is not None:
        _check_dtype(scores, dtypes.float32, "Classification scores must be a float "
                                             "Tensor.")
        outputs[sc.CLASSIFY_OUTPUT_SCORES] = build_tensor_info(scores)
    return build_signature_def({sc.CLASSIFY_INPUTS: build_tensor_info(examples)}, outputs,
                               sc.CLASSIFY_METHOD_NAME)


def regression_signature_def(examples, predictions) -> SignatureDef:
    """A Regress signature: serialized ``tf.Example`` strings in, float predictions out."""
    if examples is None:
        raise ValueError("Regression `examples` cannot be None.")
    if not isinstance(examples, Tensor):
        raise ValueError(f"Expected regression `examples` to be of type Tensor. Found "
                         f"`examples` of type {type(examples)}.")
    if predictions is None:
        raise ValueError("Regression `predictions` cannot be None.")
    _check_dtype(examples, dtypes.string, "Regression input tensors must be of type "
                                          "string.")
    _check_dtype(predictions, dtypes.float32, "Regression output tensors must be of type "
                                              "float.")
    return build_signature_def({sc.REGRESS_INPUTS: build_tensor_info(examples)},
                               {sc.REGRESS_OUTPUTS: build_tensor_info(predictions)},
                               sc.REGRESS_METHOD_NAME)


def is_valid_signature(signature_def) -> bool:
    """Whether TensorFlow Serving can serve ``signature_def``: a Predict signature with
    inputs and outputs, or a Classify / Regress one of the right keys and dtypes."""
    if signature_def is None:
        return False
    return (_is_valid_classification(signature_def) or _is_valid_regression(signature_def)
            or _is_valid_predict(signature_def))


def _check_dtype(tensor, dtype, message: str) -> None:
    if tensor.dtype != dtype:
        raise ValueError(f"{message} Found tensors of type {tensor.dtype.enum}.")


def _is_valid_predict(signature) -> bool:
    return (signature.method_name == sc.PREDICT_METHOD_NAME and bool(signature.inputs)
            and bool(signature.outputs))


def _has_types(signature, inputs: dict, outputs: dict) -> bool:
    """``signature``'s input keys are exactly ``inputs``'s and its output keys a
    non-empty subset of ``outputs``'s, each of the dtype given there."""
    if set(signature.inputs) != set(inputs) or not signature.outputs or \
            set(signature.outputs) - set(outputs):
        return False
    return all(signature.inputs[k].dtype == inputs[k].enum for k in inputs) and \
        all(signature.outputs[k].dtype == outputs[k].enum for k in signature.outputs)


def _is_valid_classification(signature) -> bool:
    return signature.method_name == sc.CLASSIFY_METHOD_NAME and _has_types(
        signature, {sc.CLASSIFY_INPUTS: dtypes.string},
        {sc.CLASSIFY_OUTPUT_CLASSES: dtypes.string, sc.CLASSIFY_OUTPUT_SCORES: dtypes.float32})


def _is_valid_regression(signature) -> bool:
    return signature.method_name == sc.REGRESS_METHOD_NAME and _has_types(
        signature, {sc.REGRESS_INPUTS: dtypes.string},
        {sc.REGRESS_OUTPUTS: dtypes.float32})


def __getattr__(name: str):
    from ..unsupported import missing

    raise missing("saved_model.signature_def_utils", name)
