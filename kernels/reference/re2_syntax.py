"""RE2 patterns, as TensorFlow's regex ops take them, run through Python's ``re``; and
RE2's ``Replace``/``GlobalReplace`` rewriting, whose rules differ from ``re.sub``'s.

``compile_re2(pattern)`` translates the RE2 syntax that ``re`` spells or reads
differently, and rejects what RE2 rejects:

* ``$`` outside ``(?m)`` is the end of the text (RE2), not "before a final newline"
  (``re``): it becomes ``\\Z``; RE2's ``\\z`` is ``re``'s ``\\Z``.
* ``\\d``, ``\\w``, ``\\s``, ``\\b`` are ASCII as RE2's (``\\s`` is ``[\\t\\n\\f\\r ]``,
  without ``\\v``), while the rest stays Unicode (``(?i)`` folds ``É`` to ``é``, ``.`` is
  one code point).
* ``[[:alpha:]]`` and the other POSIX classes, ``\\Q...\\E`` quoting, ``\\x{10FFFF}``
  (in a class too), octal ``\\12`` (``re``: a backreference), ``(?<name>...)`` and
  flags set in the middle of a group (``a(?i)b|c``: the flag holds to the group's end,
  across ``|``) are translated.
* RE2 has no lookarounds, backreferences, atomic or possessive groups, conditionals or
  comments: these are errors (``invalid perl operator: (?=``...), as RE2's are.
* A counted repetition of more than 1000, or nested ones whose counts multiply past
  1000 (``(a{100}){100}``), is RE2's error ``invalid repetition size: {100}``.

Where the two still differ it is an ``UnimplementedError`` rather than a different
answer: ``\\p{...}`` Unicode classes, ``\\C``, the ungreedy flag ``U``.  Left as they
are: ``\\D``, ``\\W``, ``\\S`` inside a bracket class are Unicode's; Python's error text
stands in for RE2's after the ``Invalid pattern: <p>, error:`` that TF writes; bytes
that are not UTF-8 are read one "character" each (RE2 matches none of them with ``.``);
and ``re`` backtracks, so a pattern such as ``(a*)*b`` can take exponential time where
RE2 is linear.

Texts are decoded from UTF-8 with ``surrogateescape``, so every byte string round-trips.
"""

from __future__ import annotations

import re
import warnings

__all__ = ["compile_re2", "PatternError", "global_replace", "replace_first", "decode",
           "encode"]

_WORD = "0-9A-Za-z_"
_SPACE = "\\t\\n\\f\\r "
_ESCAPES = {"d": "[0-9]", "D": "[^0-9]", "w": f"[{_WORD}]", "W": f"[^{_WORD}]",
            "s": f"[{_SPACE}]", "S": f"[^{_SPACE}]", "z": "\\Z",
            "b": f"(?:(?<=[{_WORD}])(?![{_WORD}])|(?<![{_WORD}])(?=[{_WORD}]))",
            "B": f"(?:(?<=[{_WORD}])(?=[{_WORD}])|(?<![{_WORD}])(?![{_WORD}]))"}
_CLASS_ESCAPES = {"d": "0-9", "w": _WORD, "s": _SPACE}
_POSIX = {"alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f",
          "blank": "\\t ", "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9",
          "graph": "!-~", "lower": "a-z", "print": " -~",
          "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\v\\f\\r ", "upper": "A-Z",
          "word": _WORD, "xdigit": "0-9A-Fa-f"}
_DIGITS = "0123456789"
_REPEAT = re.compile(r"\{(0|[1-9][0-9]*)(,(0|[1-9][0-9]*)?)?\}")   # RE2: no leading 0s
_MAX_REPEAT = 1000        # RE2's kMaxRepeat: for one count and for nested counts multiplied


class PatternError(Exception):
    """A pattern RE2 rejects (``unsupported`` False) or devsession cannot run the same
    way (True); the message is the error's text."""

    def __init__(self, message: str, unsupported: bool = False):
        super().__init__(message)
        self.unsupported = unsupported


def decode(data) -> str:
    return bytes(data).decode("utf-8", "surrogateescape")


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def compile_re2(pattern) -> re.Pattern:
    """``pattern`` (bytes or str, RE2 syntax) as a compiled Python pattern over str;
    ``PatternError`` for what RE2 rejects or what cannot run alike (module docstring)."""
    source = decode(pattern) if isinstance(pattern, (bytes, bytearray)) else str(pattern)
    translated = _Translator(source).run()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")        # re's "possible nested set" hints
            return re.compile(translated)
    except re.error as e:
        raise PatternError(str(e)) from None


class _Translator:
    """One left-to-right pass over an RE2 pattern, writing the ``re`` pattern."""

    def __init__(self, source: str):
        self.src = source
        self.i = 0
        self.out: list[str] = []
        # one entry per open group: [multiline flag, scoped flag groups opened in it]
        self.groups = [[False, 0, ""]]
        # RE2's repetition-size check: per open group, the largest product of nested
        # counted repetitions inside it; and that product for the last atom written
        self.repeats = [1]
        self.last_repeat = 1

    def run(self) -> str:
        while self.i < len(self.src):
            c = self.src[self.i]
            if c not in "){":
                self.last_repeat = 1
            if c == "\\":
                self._escape()
            elif c == "[":
                self._char_class()
            elif c == "(":
                self._open_group()
            elif c == ")":
                self._close_group()
            elif c == "|":
                self._alternative()
            elif c == "$":
                self.out.append("$" if self.groups[-1][0] else "\\Z")
                self.i += 1
            elif c == "{":
                self._brace()
            elif c in "*+?":
                self._quantifier(c)
            else:
                self.out.append(c)
                self.i += 1
        if len(self.groups) > 1:
            raise PatternError(f"missing ): {self.src}")
        self.out.append(")" * self.groups[-1][1])
        return "".join(self.out)

    # --- pieces ------------------------------------------------------------------------------

    def _escape(self):
        if self.i + 1 >= len(self.src):
            raise PatternError("trailing \\")
        c = self.src[self.i + 1]
        self.i += 2
        if c == "Q":
            end = self.src.find("\\E", self.i)
            end = len(self.src) if end < 0 else end
            self.out.append(re.escape(self.src[self.i:end]))
            self.i = end + 2
        elif c in _ESCAPES:
            self.out.append(_ESCAPES[c])
        elif c in _DIGITS:
            text, self.i = self._octal(self.i - 1)
            self.out.append(text)
        elif c in "pP":
            raise PatternError(f"\\{c} Unicode classes are not supported by devsession's "
                               f"regex ops (Python's re has none)", unsupported=True)
        elif c == "C":
            raise PatternError("\\C (any byte) is not supported by devsession's regex ops",
                               unsupported=True)
        elif c == "x" and self.src.startswith("{", self.i):
            text, self.i = self._braced_hex(self.i)
            self.out.append(text)
        elif c in "ZGKRXgkNoehHuUlLc" or (c.isalpha() and c not in "AaftnrvxE0"):
            raise PatternError(f"invalid escape sequence: \\{c}")
        else:
            self.out.append("\\" + c)

    def _braced_hex(self, i: int) -> tuple[str, int]:
        """``\\x{10FFFF}`` whose ``{`` is at ``i``: (the character, escaped; where it ends)."""
        end = self.src.find("}", i)
        digits = self.src[i + 1:end] if end > 0 else ""
        if not digits or any(d not in "0123456789abcdefABCDEF" for d in digits) or \
                int(digits, 16) > 0x10FFFF:
            raise PatternError(f"invalid escape sequence: \\x{self.src[i:end + 1]}")
        return re.escape(chr(int(digits, 16))), end + 1

    def _octal(self, i: int) -> tuple[str, int]:
        """RE2's octal escape whose first digit is at ``i``: ``\\0``, or ``\\1``-``\\7``
        followed by another octal digit, three digits at most (``re`` would read ``\\12``
        as a backreference); a lone ``\\1``-``\\9`` (a backreference) is an error."""
        src, octal = self.src, "01234567"
        if src[i] != "0" and (src[i] not in octal or src[i + 1:i + 2] not in tuple(octal)):
            raise PatternError(f"invalid escape sequence: \\{src[i]}")
        end = i + 1
        while end < min(len(src), i + 3) and src[end] in octal:
            end += 1
        return re.escape(chr(int(src[i:end], 8))), end

    def _char_class(self):
        """``[...]``: copied with RE2's POSIX classes and ASCII escapes spelled out and a
        literal ``[`` escaped (``re`` reads ``[[`` as a nested set to come)."""
        src, i = self.src, self.i + 1
        parts = ["["]
        if i < len(src) and src[i] == "^":
            parts.append("^")
            i += 1
        first = True
        while i < len(src) and (src[i] != "]" or first):
            first = False
            if src.startswith("[:", i):
                end = src.find(":]", i + 2)
                name = src[i + 2:end] if end > 0 else ""
                negated = name.startswith("^")
                if name.lstrip("^") not in _POSIX:
                    raise PatternError(f"invalid character class range: {src[i:end + 2]}")
                if negated:
                    raise PatternError(f"negated POSIX class {src[i:end + 2]} is not "
                                       f"supported by devsession's regex ops",
                                       unsupported=True)
                parts.append(_POSIX[name])
                i = end + 2
            elif src[i] == "\\" and i + 1 < len(src):
                text, i = self._class_escape(i)
                parts.append(text)
            elif src[i] == "[":
                parts.append("\\[")
                i += 1
            else:
                parts.append(src[i])
                i += 1
        if i >= len(src):
            raise PatternError(f"missing ]: {src[self.i:]}")
        parts.append("]")
        self.out.append("".join(parts))
        self.i = i + 1

    def _class_escape(self, i: int) -> tuple[str, int]:
        """The escape whose backslash is at ``i`` inside ``[...]``: (its ``re`` text, where
        it ends)."""
        src, c = self.src, self.src[i + 1]
        if c in _CLASS_ESCAPES:
            return _CLASS_ESCAPES[c], i + 2
        if c == "x" and src.startswith("{", i + 2):
            return self._braced_hex(i + 2)
        if c in _DIGITS:
            return self._octal(i + 1)
        if c in "pPC":
            raise PatternError(f"\\{c} is not supported by devsession's regex ops",
                               unsupported=True)
        return src[i:i + 2], i + 2

    def _push_group(self, multiline: bool):
        self.groups.append([multiline, 0, ")"])
        self.repeats.append(1)

    def _open_group(self):
        src, i = self.src, self.i
        multiline = self.groups[-1][0]
        if not src.startswith("(?", i):
            self.out.append("(")
            self._push_group(multiline)
            self.i += 1
            return
        rest = src[i + 2:]
        if rest.startswith(("P<", ":")) or (rest.startswith("<") and rest[1:2].isalpha()):
            opener = "(?P<" if rest.startswith(("P<", "<")) and not rest.startswith(":") \
                else "(?:"
            self.out.append(opener)
            self._push_group(multiline)
            self.i += 2 + (2 if rest.startswith("P<") else 1)
            return
        flags = re.match(r"([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])", rest)
        if flags is None or not flags.group(0)[:-1]:
            raise PatternError(f"invalid perl operator: {src[i:i + 3]}")
        if flags.group(2) == "":           # a "-" with no flag after it: (?-), (?i-:
            raise PatternError(f"invalid perl operator: {src[i:i + 2 + len(flags.group(0))]}")
        on, off, end = flags.group(1), flags.group(2) or "", flags.group(3)
        for f in on + off:
            if f == "U":
                raise PatternError("the ungreedy flag (?U) is not supported by devsession's "
                                   "regex ops", unsupported=True)
            if f not in "ims":
                raise PatternError(f"invalid perl operator: {src[i:i + 3 + len(on)]}")
        if "m" in on:
            multiline = True
        if "m" in off:
            multiline = False
        scoped = f"(?{on}{'-' + off if off else ''}:"
        self.i += 2 + len(flags.group(0))
        if end == ":":
            self.out.append(scoped)
            self._push_group(multiline)
        else:
            # (?i) holds to the end of the enclosing group: a scoped group opened here is
            # closed there (and around each "|" in between)
            self.out.append(scoped)
            group = self.groups[-1]
            group[0] = multiline
            group[1] += 1
            group.append(scoped)

    def _close_group(self):
        if len(self.groups) == 1:
            raise PatternError(f"unexpected ): {self.src}")
        group = self.groups.pop()
        self.out.append(")" * group[1] + group[2])
        self.i += 1
        self.last_repeat = self.repeats.pop()
        self.repeats[-1] = max(self.repeats[-1], self.last_repeat)

    def _alternative(self):
        group = self.groups[-1]
        scoped = group[3:]
        self.out.append(")" * group[1] + "|" + "".join(scoped))
        self.i += 1

    def _brace(self):
        found = _REPEAT.match(self.src, self.i)
        if found is None:                  # RE2 reads "{", "{,3}", "{05}" literally
            self.out.append("\\{")
            self.i += 1
            self.last_repeat = 1
            return
        self._check_repeat_size(found)
        self.out.append(found.group(0))
        self.i = found.end()
        self._no_possessive(found.group(0))

    def _check_repeat_size(self, found):
        """RE2's limits on ``{n}``, ``{n,}``, ``{n,m}``: counts of at most 1000, ``n <= m``,
        and the counts of nested repetitions multiplying to at most 1000."""
        def count(digits: str) -> int:
            return _MAX_REPEAT + 1 if len(digits) > 4 else int(digits)

        low = count(found.group(1))
        high = low if found.group(2) is None else \
            count(found.group(3)) if found.group(3) else -1
        times = high if high >= 0 else low
        product = self.last_repeat * max(times, 1)
        if max(low, high) > _MAX_REPEAT or (high >= 0 and high < low) or \
                product > _MAX_REPEAT:
            raise PatternError(f"invalid repetition size: {found.group(0)}")
        self.last_repeat = product
        self.repeats[-1] = max(self.repeats[-1], product)

    def _quantifier(self, c: str):
        self.out.append(c)
        self.i += 1
        self._no_possessive(c)

    def _no_possessive(self, quantifier: str):
        nxt = self.src[self.i:self.i + 1]
        if nxt == "?":                     # lazy: RE2 has it
            self.out.append("?")
            self.i += 1
        elif nxt and nxt in "*+":
            raise PatternError(f"bad repetition operator: {quantifier}{nxt}")


# --- RE2's rewriting ------------------------------------------------------------------------

def _max_submatch(rewrite: str) -> int:
    """The highest ``\\N`` in ``rewrite`` (RE2's MaxSubmatch)."""
    top, i = 0, 0
    while i < len(rewrite):
        if rewrite[i] == "\\":
            i += 1
            if i < len(rewrite) and rewrite[i] in _DIGITS:
                top = max(top, int(rewrite[i]))
        i += 1
    return top


def _rewrite(rewrite: str, match) -> tuple[str, bool]:
    """(text, ok): ``rewrite`` with ``\\0``-``\\9`` replaced by the match's groups and
    ``\\\\`` by a backslash; any other escape stops it there (RE2's Rewrite: what was
    written so far stays, and ok is False)."""
    out, i = [], 0
    while i < len(rewrite):
        c = rewrite[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        nxt = rewrite[i + 1] if i + 1 < len(rewrite) else ""
        if nxt and nxt in _DIGITS:
            out.append(match.group(int(nxt)) or "")
        elif nxt == "\\":
            out.append("\\")
        else:
            return "".join(out), False
        i += 2
    return "".join(out), True


def replace_first(compiled: re.Pattern, text: str, rewrite: str) -> str:
    """RE2::Replace: the first match rewritten; ``text`` unchanged when there is none,
    when ``rewrite`` names a group the pattern lacks, or when it is malformed."""
    if _max_submatch(rewrite) > compiled.groups:
        return text
    match = compiled.search(text)
    if match is None:
        return text
    replaced, ok = _rewrite(rewrite, match)
    return text[:match.start()] + replaced + text[match.end():] if ok else text


def global_replace(compiled: re.Pattern, text: str, rewrite: str) -> str:
    """RE2::GlobalReplace: every non-overlapping match rewritten, left to right; an empty
    match right where the previous match ended is skipped (``re.sub`` would take it)."""
    if _max_submatch(rewrite) > compiled.groups:
        return text
    out, pos, last_end, count = [], 0, None, 0
    while pos <= len(text):
        match = compiled.search(text, pos)
        if match is None:
            break
        out.append(text[pos:match.start()])
        if match.start() == match.end() and match.start() == last_end:
            if pos < len(text):
                out.append(text[pos])
            pos += 1
            continue
        out.append(_rewrite(rewrite, match)[0])
        pos = last_end = match.end()
        count += 1
    if count == 0:
        return text
    out.append(text[pos:])
    return "".join(out)
