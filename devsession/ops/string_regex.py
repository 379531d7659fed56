"""TF1's regex ops: ``tf.regex_replace`` / ``tf.strings.regex_replace`` and
``tf.strings.regex_full_match``, over RE2 patterns as TF's.

As TF's Python wrappers do, a pattern (and rewrite) given as a Python string builds the
``Static`` op, with the pattern an attr compiled once; a tensor builds the op that reads
them at run time (scalars, else ``ValueError`` when the graph knows the rank):

* ``StaticRegexReplace(input)``: attrs ``pattern``, ``rewrite``, ``replace_global``;
  ``RegexReplace(input, pattern, rewrite)``: attr ``replace_global``.
* ``StaticRegexFullMatch(input)``: attr ``pattern``; ``RegexFullMatch(input, pattern)``.

The rewrite is RE2's: ``\\1``..``\\9`` insert groups, ``\\0`` the match, ``\\\\`` a
backslash.  Patterns run through Python's ``re`` after a translation of RE2's syntax
(``kernels/reference/re2_syntax.py`` says what is translated and what is not); an
invalid pattern is ``InvalidArgumentError`` ("Invalid pattern: <p>, error: ...") at run
time, as TF's, and RE2 syntax ``re`` cannot run alike (``\\pL``) ``UnimplementedError``.
Host kernels (``kernels/reference/string_regex.py``); not differentiable.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from .common import graph_of, make_op
from .registry import OpDef, not_differentiable, register_op
from .strings import check_scalar, check_strings

__all__ = ["regex_replace", "regex_full_match", "REGEX_OPS"]

REGEX_OPS = ("RegexReplace", "StaticRegexReplace", "RegexFullMatch", "StaticRegexFullMatch")


def _infer(out_dtype, scalar_inputs: tuple):
    def infer(inputs, attrs, node):
        check_strings(inputs, node)
        for index, what in scalar_inputs:
            check_scalar(inputs[index], node, what)
        return out_dtype, inputs[0].shape
    return infer


register_op(OpDef("StaticRegexReplace", _infer(dtypes.string, ()), 1,
                  attr_defaults={"replace_global": True}))
register_op(OpDef("RegexReplace", _infer(dtypes.string, ((1, "pattern"), (2, "rewrite"))), 3,
                  attr_defaults={"replace_global": True}))
register_op(OpDef("StaticRegexFullMatch", _infer(dtypes.bool_, ()), 1))
register_op(OpDef("RegexFullMatch", _infer(dtypes.bool_, ((1, "pattern"),)), 2))
not_differentiable(*REGEX_OPS)


def _text(value) -> bool:
    return isinstance(value, (str, bytes))


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """TF1's ``tf.regex_replace`` / ``tf.strings.regex_replace``: matches of ``pattern``
    in each string replaced by ``rewrite`` (every match, or the first with
    ``replace_global=False``); see the module docstring."""
    graph = graph_of(input, pattern, rewrite)
    static = _text(pattern) and _text(rewrite)
    op_type = "StaticRegexReplace" if static else "RegexReplace"
    with name_scope(name or op_type) as scope:
        x = convert_to_tensor(input, dtype=dtypes.string, graph=graph, name="input")
        if static:
            return make_op(op_type, [x], {"pattern": pattern, "rewrite": rewrite,
                                          "replace_global": bool(replace_global)}, name=scope)
        operands = [convert_to_tensor(v, dtype=dtypes.string, graph=graph, name=n)
                    for v, n in ((pattern, "pattern"), (rewrite, "rewrite"))]
        return make_op(op_type, [x, *operands], {"replace_global": bool(replace_global)},
                       name=scope)


def regex_full_match(input, pattern, name=None) -> Tensor:  # noqa: A002
    """TF1's ``tf.strings.regex_full_match``: bool, whether ``pattern`` matches each
    whole string."""
    graph = graph_of(input, pattern)
    op_type = "StaticRegexFullMatch" if _text(pattern) else "RegexFullMatch"
    with name_scope(name or op_type) as scope:
        x = convert_to_tensor(input, dtype=dtypes.string, graph=graph, name="input")
        if _text(pattern):
            return make_op(op_type, [x], {"pattern": pattern}, name=scope)
        p = convert_to_tensor(pattern, dtype=dtypes.string, graph=graph, name="pattern")
        return make_op(op_type, [x, p], None, name=scope)
