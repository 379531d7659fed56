"""More stages of a dataset pipeline (``kernels/reference/dataset.py`` runs it), behind
``tf.data.experimental``'s ``unique``, ``assert_cardinality`` and ``from_list``
(``devsession/data/transformations.py``; ``RandomDataset``'s source:
``dataset_random.py``):

``unique``              the elements not seen before (one int32, int64 or string
                        component), in their first order
``assert_cardinality``  the elements, checked to be ``expected`` many (-1: never
                        ending; errors are not counted): TF's ``FailedPreconditionError``
                        at each element past them, or at every ``get_next`` after the
                        end of a wrong count (TF's reads its ended input again)
``list``                a source: the inputs in groups of ``num_components``, one
                        element each (the elements may differ in shape)
"""

from __future__ import annotations

from devsession.errors import FailedPreconditionError, InvalidArgumentError

from .dataset_failures import Failed

__all__ = ["unique_stage", "assert_cardinality_stage", "list_source"]


def unique_stage(node, stage, upstream, _, __):
    def unique():
        seen = set()
        for element in upstream():
            if element.__class__ is Failed:
                yield element
                continue
            if len(element) != 1:
                raise InvalidArgumentError("UniqueDataset only supports inputs with a "
                                           "single component.", node.name)
            value = element[0]
            key = (value.shape, value.tobytes() if value.dtype != object
                   else tuple(value.reshape(-1).tolist()))
            if key not in seen:
                seen.add(key)
                yield element
    return unique


def assert_cardinality_stage(node, stage, upstream, _, __):
    expected = stage["expected"]

    def _expected_text() -> str:
        return "an infinite number of" if expected < 0 else str(expected)

    def checked():
        count = 0
        for element in upstream():
            if element.__class__ is not Failed:
                count += 1
                if 0 <= expected < count:
                    element = Failed(FailedPreconditionError(
                        f"Input dataset was expected to contain {_expected_text()} "
                        f"elements but contained at least {count} elements.", node.name))
            yield element
        if count != expected:
            failure = Failed(FailedPreconditionError(
                f"Input dataset was expected to contain {_expected_text()} elements but "
                f"contained only {count} elements.", node.name))
            while True:
                yield failure
    return checked


def list_source(node, stage, inputs):
    width = stage["num_components"]
    elements = [inputs[i:i + width] for i in range(0, len(inputs), width)]
    return lambda: ([v.copy() for v in element] for element in elements)
