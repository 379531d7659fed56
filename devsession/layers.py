"""``ds.layers``: TF1's ``tf.layers``, its functions (``dense``, ``conv2d``...,
``layers_functional.py``; ``batch_normalization``, ``layers_batch_norm.py``) and their
classes (``Dense``, ``Conv2D``..., ``layers_classes.py``).  Any other name raises
``UnsupportedTF1Error`` naming it."""

from .layers_classes import (AveragePooling1D, AveragePooling2D, AveragePooling3D,
                             BatchNormalization, Conv1D, Conv2D, Conv2DTranspose, Conv3D,
                             Conv3DTranspose, Dense, Dropout, Flatten, Layer, MaxPooling1D,
                             MaxPooling2D, MaxPooling3D, SeparableConv2D)
from .layers_batch_norm import batch_normalization
from .layers_functional import (average_pooling1d, average_pooling2d, average_pooling3d, conv1d,
                                conv2d, conv2d_transpose, conv3d, conv3d_transpose, dense,
                                dropout, flatten, max_pooling1d, max_pooling2d, max_pooling3d,
                                separable_conv2d)

__all__ = ["dense", "conv2d", "conv2d_transpose", "max_pooling2d", "average_pooling2d",
           "flatten", "dropout", "batch_normalization", "conv1d", "max_pooling1d",
           "average_pooling1d", "separable_conv2d",
           "Layer", "Dense", "Conv1D", "Conv2D", "Conv2DTranspose", "SeparableConv2D",
           "MaxPooling1D", "MaxPooling2D", "AveragePooling1D", "AveragePooling2D", "Flatten",
           "Dropout", "BatchNormalization", "conv3d", "conv3d_transpose", "max_pooling3d",
           "average_pooling3d", "Conv3D", "Conv3DTranspose", "MaxPooling3D",
           "AveragePooling3D"]

from .layers_classes import SeparableConv1D  # noqa: E402
from .layers_separable import separable_conv1d  # noqa: E402

__all__ += ["separable_conv1d", "SeparableConv1D"]

from .layers_input_spec import InputSpec  # noqa: E402

__all__ += ["InputSpec"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("layers", name)
