"""Kernels of the regex ops (``devsession/ops/string_regex.py``), on the host.

Patterns are RE2's, run through Python's ``re`` by ``re2_syntax.py`` (which says where
the two differ).  A ``Static`` op compiles its pattern attr once, when the kernel is
built, and reports a bad one on every run, as TF's kernel does when it is constructed;
the others compile the pattern they are fed, remembering the last few.  Errors:
``InvalidArgumentError`` ("Invalid pattern: <p>, error: <why>", "Pattern must be scalar,
but received [1]"), or ``UnimplementedError`` for RE2 syntax devsession cannot run
alike.  Strings are read as UTF-8, any byte kept (``re2_syntax.decode``).
"""

from __future__ import annotations

import functools

import numpy as np

from devsession.errors import InvalidArgumentError, UnimplementedError

from ..checks import fmt_shape
from ..registry import HOST, register_kernel
from .re2_syntax import PatternError, compile_re2, decode, encode, global_replace, \
    replace_first
from .strings import each_string


def _compiled(node, pattern):
    """``pattern`` compiled, or (error class, message) of the error to raise for it."""
    try:
        return compile_re2(pattern)
    except PatternError as e:
        text = decode(pattern) if isinstance(pattern, bytes) else str(pattern)
        error = UnimplementedError if e.unsupported else InvalidArgumentError
        return error, f"'{node.name}': Invalid pattern: {text}, error: {e}"


def _pattern_cache(node):
    @functools.lru_cache(maxsize=16)
    def compiled(pattern: bytes):
        return _compiled(node, pattern)
    return compiled


def _scalar(node, value, what: str) -> bytes:
    value = np.asarray(value, dtype=object)
    if value.ndim:
        raise InvalidArgumentError(f"'{node.name}': {what} must be scalar, but received "
                                   f"{fmt_shape(value.shape)}", node.name)
    return bytes(value.item())


def _replacer(compiled, rewrite, replace_global: bool):
    rewrite_text = decode(rewrite) if isinstance(rewrite, bytes) else str(rewrite)
    replace = global_replace if replace_global else replace_first
    return lambda s: encode(replace(compiled, decode(s), rewrite_text))


def _raise_if_error(node, compiled):
    if isinstance(compiled, tuple):
        error, message = compiled
        raise error(message, node.name)
    return compiled


@register_kernel("StaticRegexReplace", HOST)
def build_static_regex_replace(node):
    compiled = _compiled(node, node.attrs["pattern"])
    rewrite = node.attrs.get("rewrite", "")
    replace_global = bool(node.attrs.get("replace_global", True))

    def static_regex_replace(data):
        replace = _replacer(_raise_if_error(node, compiled), rewrite, replace_global)
        return each_string(replace, data)
    return static_regex_replace


@register_kernel("RegexReplace", HOST)
def build_regex_replace(node):
    cache = _pattern_cache(node)
    replace_global = bool(node.attrs.get("replace_global", True))

    def regex_replace(data, pattern, rewrite):
        compiled = _raise_if_error(node, cache(_scalar(node, pattern, "Pattern")))
        rewrite = _scalar(node, rewrite, "Rewrite")
        return each_string(_replacer(compiled, rewrite, replace_global), data)
    return regex_replace


def _full_matcher(compiled):
    return lambda s: compiled.fullmatch(decode(s)) is not None


@register_kernel("StaticRegexFullMatch", HOST)
def build_static_regex_full_match(node):
    compiled = _compiled(node, node.attrs["pattern"])

    def static_regex_full_match(data):
        return each_string(_full_matcher(_raise_if_error(node, compiled)), data, bool)
    return static_regex_full_match


@register_kernel("RegexFullMatch", HOST)
def build_regex_full_match(node):
    cache = _pattern_cache(node)

    def regex_full_match(data, pattern):
        compiled = _raise_if_error(node, cache(_scalar(node, pattern, "Pattern")))
        return each_string(_full_matcher(compiled), data, bool)
    return regex_full_match
