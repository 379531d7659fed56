"""The dataset sources that read files or call Python (``kernels/reference/dataset.py``
runs the pipeline): ``tfrecord``, the records of TFRecord files (``devsession/io/
tfrecord.py`` reads the frames), ``textline``, the lines of text files, and
``fixed_length``, their records of ``record_bytes`` between a header and a footer
(``devsession/io/plain_records.py``), files one after another or ``cycle_length`` of
them interleaved a record at a time, as TF's ``num_parallel_reads`` orders them;
``list_files``, the sorted paths matching glob patterns; and ``generator``, the
elements of the generator registered under the stage's ``token``
(``devsession/data/generator.py``), called with the stage's inputs.

Each record is a scalar string element.  An error reading a file is raised for the
``get_next`` that reached it, naming the node, and the iterator goes on as TF's
(``dataset_failures.py``): a file that cannot be opened (``NotFoundError``) is that
error at every ``get_next`` that reaches it, as TF's reader tries it again each time; an
error partway through one (``DataLossError``) ends that file.  A generator's exception
is the OpError ``py_func`` makes of it, and ends its elements; a value it yields that
does not fit the declared dtypes and shapes is an error in that element's place.
"""

from __future__ import annotations

import glob
import os

import numpy as np

from devsession.errors import (DataLossError, FailedPreconditionError, InvalidArgumentError,
                               OpError)
from devsession.io.plain_records import read_fixed_length, read_lines
from devsession.io.tfrecord import read_records
from devsession.ops.script import registered_function

from .dataset_failures import Failed
from .script import python_error

__all__ = ["tfrecord_source", "textline_source", "fixed_length_source", "generator_source",
           "list_files_source", "interleaved", "default_cycle_length", "file_records"]


def default_cycle_length() -> int:
    """TF's AUTOTUNE cycle length: the CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:                  # not on Linux
        return os.cpu_count() or 1


def _file_source(records):
    """A source of the scalar string records ``records(path)`` gives for each file of
    the stage's input, read one after another or ``cycle_length`` interleaved."""
    def source(node, stage, args):
        (files,) = args
        if files.ndim > 1:
            raise InvalidArgumentError(f"'{node.name}': filenames must be a scalar or a "
                                       f"vector, got shape {list(files.shape)}.", node.name)
        paths = [_text(f) for f in np.asarray(files, dtype=object).reshape(-1)]
        read = records(node, stage)
        cycle = stage["cycle_length"]
        if cycle < 0:
            cycle = default_cycle_length()

        def records_of(path):
            return file_records(node, read(path), _scalar_string)

        if cycle == 1:
            return lambda: (e for path in paths for e in records_of(path))
        return lambda: interleaved(iter(paths), records_of, cycle, 1, advance_on_error=True)
    return source


def _scalar_string(record: bytes) -> list:
    return [np.array(record, dtype=object)]


def file_records(node, records, convert):
    """``convert`` of each of one file's ``records``; an error opening the file (before
    any record, other than a corrupt record's ``DataLossError``) is that file's every
    element from then on, as TF's reader opens it again at each ``get_next``; an error
    partway through ends the file after it."""
    opened = False
    try:
        for record in records:
            opened = True
            yield convert(record)
    except OpError as e:
        failure = Failed(_named(node, e))
        if opened or isinstance(e, DataLossError):
            yield failure
        else:
            while True:
                yield failure


def _tfrecords(node, stage):
    compression = stage["compression"]
    return lambda path: read_records(path, compression)


def _lines(node, stage):
    compression = stage["compression"]
    return lambda path: read_lines(path, compression)


def _fixed_length(node, stage):
    compression = stage["compression"]
    sizes = [int(stage[k]) for k in ("record_bytes", "header_bytes", "footer_bytes")]
    for key, size, least in zip(("record_bytes", "header_bytes", "footer_bytes"), sizes,
                                (1, 0, 0)):
        if size < least:         # what a GraphDef may say; ds.data checks when building
            raise InvalidArgumentError(f"'{node.name}': `{key}` must be "
                                       f"{'> 0' if least else '>= 0'}", node.name)
    return lambda path: read_fixed_length(path, *sizes, compression)


tfrecord_source = _file_source(_tfrecords)
textline_source = _file_source(_lines)
fixed_length_source = _file_source(_fixed_length)


def list_files_source(node, stage, args):
    """The paths matching the patterns of the stage's input, all of them sorted (TF's
    MatchingFiles), matched once, when the iterator starts."""
    (patterns,) = args
    if patterns.ndim > 1:
        raise InvalidArgumentError(f"'{node.name}': file_pattern must be a scalar or a "
                                   f"vector, got shape {list(patterns.shape)}.", node.name)
    texts = [_text(p) for p in np.asarray(patterns, dtype=object).reshape(-1)]
    paths = sorted(os.fsencode(path) for pattern in texts
                   for path in glob.glob(pattern, include_hidden=True))
    if not paths:
        raise InvalidArgumentError(f"'{node.name}': No files matched pattern: "
                                   f"{', '.join(texts)}", node.name)
    return lambda: ([np.array(path, dtype=object)] for path in paths)


def generator_source(node, stage, args):
    elements = registered_function(stage["token"])
    if elements is None:
        raise FailedPreconditionError(
            f"'{node.name}': the generator of this dataset (token {stage['token']!r}) is "
            f"not registered in this process: a from_generator dataset runs only in the "
            f"process that built it.", node.name)
    return lambda: _generated(node, elements, args)


def _generated(node, elements, args):
    """The generator's elements (``data/generator.py``'s ``values`` checked by its
    ``element``): its exception is TF's error for it, then the end (a Python generator
    that raised is finished); a value that does not fit is an error in its place."""
    values = elements.values(*args)
    while True:
        try:
            value = next(values)
        except StopIteration:
            return
        except Exception as e:
            yield Failed(python_error(node, e, "the dataset's generator"))
            return
        try:
            element = elements.element(value)
        except OpError as e:
            element = Failed(_named(node, e))
        yield element


def interleaved(inputs, open_element, cycle_length: int, block_length: int,
                advance_on_error: bool = False):
    """TF's interleave order (``InterleaveDatasetOp``): ``cycle_length`` slots, each
    holding an iterator opened by ``open_element(input)``; ``block_length`` elements from
    a slot, then the next slot.  An empty slot takes the next input when the cycle comes
    to it; a slot whose iterator ends is emptied and the cycle moves on.  An error (an
    input's, ``open_element``'s, a slot's element's) is raised where the cycle stands,
    which stays there, as TF's; ``advance_on_error`` (TF's parallel interleave, which
    ``num_parallel_reads`` is too): a slot's error counts in its block as an element
    does, and an input's or ``open_element``'s fills the slot as an iterator of that
    one error."""
    slots = [None] * cycle_length
    index = block = opened = 0
    end_of_input = False
    while not end_of_input or opened:
        current = slots[index]
        if current is not None:
            element = next(current, _END)
            if element is not _END:
                if advance_on_error or element.__class__ is not Failed:
                    block += 1
                    if block == block_length:
                        block, index = 0, (index + 1) % cycle_length
                yield element
                continue
            slots[index] = None
            opened -= 1
            block, index = 0, (index + 1) % cycle_length
        elif not end_of_input:
            item = next(inputs, _END)
            if item is _END:
                end_of_input = True
            else:
                try:
                    slots[index] = item if item.__class__ is Failed else \
                        iter(open_element(item))
                except OpError as e:
                    slots[index] = Failed(e)
                if slots[index].__class__ is Failed and not advance_on_error:
                    failure, slots[index] = slots[index], None
                    yield failure
                    continue
                if slots[index].__class__ is Failed:      # a slot of that one error
                    slots[index] = iter([slots[index]])
                opened += 1
        else:
            block, index = 0, (index + 1) % cycle_length


_END = object()


def _named(node, error: OpError) -> OpError:
    """``error``, or where it names no node, the same error naming this node."""
    if error.node_name:
        return error
    return type(error)(f"'{node.name}': {error.message}", node.name)


def _text(name) -> str:
    return name.decode() if isinstance(name, bytes) else str(name)
