"""TF1's queue-based input pipeline builders (``tf.train.string_input_producer``,
``tf.train.shuffle_batch``...), made of the same ops and queue runners as TF1 makes them,
so a TF1 program's graph, names and collections are what it expects.

* ``match_filenames_once(pattern)``: a local variable holding the files a glob pattern
  matched when ``ds.local_variables_initializer()`` ran (the input of
  ``string_input_producer``, as TF1's tutorials feed it).
* ``limit_epochs(t, n)``: ``t`` behind a ``CountUpTo`` on a local variable ``epochs``,
  so its ``n + 1``-th evaluation is ``OutOfRangeError`` (run
  ``ds.local_variables_initializer()`` first, as in TF1).
* ``input_producer`` and its spellings (``string_``, ``range_``, ``slice_``): a
  ``FIFOQueue`` fed with the whole input (shuffled each epoch with ``shuffle``) by one
  queue runner; when the epochs run out, the runner closes the queue and its readers end
  with ``OutOfRangeError`` once it is drained.
* ``batch``, ``shuffle_batch`` (and ``_join``): a ``FIFOQueue``, ``PaddingFIFOQueue``
  (``dynamic_pad``) or ``RandomShuffleQueue`` filled by ``num_threads`` runner threads,
  read by one ``dequeue_many`` (``dequeue_up_to`` with ``allow_smaller_final_batch``);
  their ``maybe_`` forms enqueue only what ``keep_input`` keeps (a bool scalar, or with
  ``enqueue_many`` one per example), a ``boolean_mask`` before an ``enqueue_many``.

Each adds its ``QueueRunner`` to ``QUEUE_RUNNERS`` and a fill-fraction summary, as TF1's.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from ..graph_keys import GraphKeys
from ..queues import FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue
from ..tensor_shape import TensorShape
from .queue_runner import QueueRunner, add_queue_runner

__all__ = ["match_filenames_once", "limit_epochs", "input_producer", "string_input_producer", "range_input_producer",
           "slice_input_producer", "batch", "shuffle_batch", "batch_join",
           "shuffle_batch_join", "maybe_batch", "maybe_batch_join", "maybe_shuffle_batch",
           "maybe_shuffle_batch_join"]


def match_filenames_once(pattern, name=None):
    """A local variable (named ``matching_filenames``) set to the sorted paths that glob
    ``pattern`` matches when local variables are initialized, and kept after."""
    from ..ops.file_io import matching_files
    from ..variables import Variable

    with name_scope(name or "matching_filenames") as scope:
        return Variable(matching_files(pattern), name=scope, trainable=False,
                        validate_shape=False, collections=[GraphKeys.LOCAL_VARIABLES])


def limit_epochs(tensor, num_epochs=None, name=None):
    """``tensor``, each evaluation counted: the ``num_epochs + 1``-th is
    ``OutOfRangeError`` (None: no limit, ``tensor`` itself)."""
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    from ..ops.array import identity
    from ..variables import Variable

    with name_scope(name or "limit_epochs") as scope:
        epochs = Variable(convert_to_tensor(0, dtype=dtypes.int64), name="epochs",
                          trainable=False, collections=[GraphKeys.LOCAL_VARIABLES])
        counter = epochs.count_up_to(num_epochs)
        with control_dependencies([counter]):
            return identity(tensor, name=scope)


def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True,
                   seed=None, capacity=32, shared_name=None, summary_name=None, name=None,
                   cancel_op=None):
    """A FIFOQueue a queue runner fills with the rows of ``input_tensor``, ``num_epochs``
    times (None: forever), in a new random order each time with ``shuffle``."""
    from ..ops.random import random_shuffle

    with name_scope(name or "input_producer") as scope:
        input_tensor = convert_to_tensor(input_tensor, name="input_tensor")
        rows = input_tensor.shape[1:] if input_tensor.shape.rank else TensorShape(None)
        element_shape = rows.merge_with(TensorShape(element_shape))
        if not element_shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or "
                             "`element_shape` must be specified")
        if shuffle:
            input_tensor = random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        queue = FIFOQueue(capacity, [input_tensor.dtype], shapes=[element_shape],
                          shared_name=shared_name, name=scope)
        enqueue = queue.enqueue_many([input_tensor])
        add_queue_runner(QueueRunner(queue, [enqueue], cancel_op=cancel_op))
        if summary_name is not None:
            _fill_summary(summary_name, queue.size(), 0, capacity)
        return queue


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None,
                          capacity=32, shared_name=None, name=None, cancel_op=None):
    """The file names ``string_tensor`` holds, in a queue (see ``input_producer``); an
    empty list is ``ValueError`` (an empty tensor fails when run)."""
    from ..ops import Assert, greater, identity, size

    from ..variables import Variable

    not_null = "string_input_producer requires a non-null input tensor"
    if not isinstance(string_tensor, (Tensor, Variable)) and not len(string_tensor):
        raise ValueError(not_null)
    with name_scope(name or "input_producer") as scope:
        string_tensor = convert_to_tensor(string_tensor, dtype=dtypes.string)
        with control_dependencies([Assert(greater(size(string_tensor), 0), [not_null])]):
            string_tensor = identity(string_tensor)
        return input_producer(string_tensor, [], num_epochs=num_epochs, shuffle=shuffle,
                              seed=seed, capacity=capacity, shared_name=shared_name,
                              name=scope, summary_name=f"fraction_of_{capacity}_full",
                              cancel_op=cancel_op)


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):
    """The integers ``0 .. limit - 1`` in a queue (see ``input_producer``)."""
    from ..ops.sequence import range as range_op

    with name_scope(name or "input_producer") as scope:
        return input_producer(range_op(limit), [], num_epochs, shuffle, seed, capacity,
                              shared_name, f"fraction_of_{capacity}_full", scope)


def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None) -> list:
    """One row of each tensor of ``tensor_list`` (the same row of each), row numbers
    coming from a ``range_input_producer``."""
    from ..ops import gather, shape

    with name_scope(name or "input_producer"):
        tensor_list = [convert_to_tensor(t) for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        rows = shape(tensor_list[0])[0]
        queue = range_input_producer(rows, num_epochs=num_epochs, shuffle=shuffle,
                                     seed=seed, capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        return [gather(t, index) for t in tensor_list]


# --- batching ------------------------------------------------------------------------------

def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
          dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """``tensors`` (a list or dict) batched ``batch_size`` at a time through a FIFO queue
    that ``num_threads`` threads fill."""
    return _batch([tensors], tensors, batch_size, num_threads, capacity, enqueue_many,
                  shapes, dynamic_pad, allow_smaller_final_batch, shared_name,
                  name or "batch")


def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None,
               dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None,
               name=None):
    """As ``batch``, one thread per entry of ``tensors_list`` (lists or dicts alike)."""
    return _batch(list(tensors_list), tensors_list[0], batch_size, None, capacity,
                  enqueue_many, shapes, dynamic_pad, allow_smaller_final_batch,
                  shared_name, name or "batch_join")


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None,
                  enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                  shared_name=None, name=None):
    """``tensors`` batched in random order through a RandomShuffleQueue that keeps
    ``min_after_dequeue`` elements back (``capacity`` must be larger)."""
    return _shuffle_batch([tensors], tensors, batch_size, capacity, min_after_dequeue,
                          num_threads, seed, enqueue_many, shapes, allow_smaller_final_batch,
                          shared_name, name or "shuffle_batch")


def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None,
                       enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                       shared_name=None, name=None):
    """As ``shuffle_batch``, one thread per entry of ``tensors_list``."""
    return _shuffle_batch(list(tensors_list), tensors_list[0], batch_size, capacity,
                          min_after_dequeue, None, seed, enqueue_many, shapes,
                          allow_smaller_final_batch, shared_name,
                          name or "shuffle_batch_join")


def maybe_batch(tensors, keep_input, batch_size, num_threads=1, capacity=32,
                enqueue_many=False, shapes=None, dynamic_pad=False,
                allow_smaller_final_batch=False, shared_name=None, name=None):
    """``batch`` of what ``keep_input`` keeps."""
    return _batch([tensors], tensors, batch_size, num_threads, capacity, enqueue_many,
                  shapes, dynamic_pad, allow_smaller_final_batch, shared_name,
                  name or "batch", keep_input)


def maybe_batch_join(tensors_list, keep_input, batch_size, capacity=32, enqueue_many=False,
                     shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
                     shared_name=None, name=None):
    """``batch_join`` of what ``keep_input`` keeps."""
    return _batch(list(tensors_list), tensors_list[0], batch_size, None, capacity,
                  enqueue_many, shapes, dynamic_pad, allow_smaller_final_batch,
                  shared_name, name or "batch_join", keep_input)


def maybe_shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                        num_threads=1, seed=None, enqueue_many=False, shapes=None,
                        allow_smaller_final_batch=False, shared_name=None, name=None):
    """``shuffle_batch`` of what ``keep_input`` keeps."""
    return _shuffle_batch([tensors], tensors, batch_size, capacity, min_after_dequeue,
                          num_threads, seed, enqueue_many, shapes, allow_smaller_final_batch,
                          shared_name, name or "shuffle_batch", keep_input)


def maybe_shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue,
                             keep_input, seed=None, enqueue_many=False, shapes=None,
                             allow_smaller_final_batch=False, shared_name=None, name=None):
    """``shuffle_batch_join`` of what ``keep_input`` keeps."""
    return _shuffle_batch(list(tensors_list), tensors_list[0], batch_size, capacity,
                          min_after_dequeue, None, seed, enqueue_many, shapes,
                          allow_smaller_final_batch, shared_name,
                          name or "shuffle_batch_join", keep_input)


def _batch(sources, original, batch_size, threads, capacity, enqueue_many, shapes,
           dynamic_pad, allow_smaller_final_batch, shared_name, name, keep_input=None):
    with name_scope(name) as scope:
        keep = _keep(keep_input, enqueue_many)
        lists = [_tensor_list(s) for s in sources]
        types, shapes = _dtypes(lists), _shapes(lists, shapes, enqueue_many)
        queue_type = PaddingFIFOQueue if dynamic_pad else FIFOQueue
        queue = queue_type(capacity, types, shapes, shared_name=shared_name)
        _enqueue(queue, lists, threads, enqueue_many, keep)
        _fill_summary(f"fraction_of_{capacity}_full", queue.size(), 0, capacity)
        return _dequeued(queue, original, batch_size, allow_smaller_final_batch, scope)


def _shuffle_batch(sources, original, batch_size, capacity, min_after_dequeue, threads, seed,
                   enqueue_many, shapes, allow_smaller_final_batch, shared_name, name,
                   keep_input=None):
    with name_scope(name) as scope:
        if capacity <= min_after_dequeue:
            raise ValueError(f"capacity {capacity} must be bigger than min_after_dequeue "
                             f"{min_after_dequeue}.")
        keep = _keep(keep_input, enqueue_many)
        lists = [_tensor_list(s) for s in sources]
        types, shapes = _dtypes(lists), _shapes(lists, shapes, enqueue_many)
        queue = RandomShuffleQueue(capacity, min_after_dequeue, types, shapes, seed=seed,
                                   shared_name=shared_name)
        _enqueue(queue, lists, threads, enqueue_many, keep)
        _fill_summary(f"fraction_over_{min_after_dequeue}_of_"
                      f"{capacity - min_after_dequeue}_full", queue.size(),
                      min_after_dequeue, capacity)
        return _dequeued(queue, original, batch_size, allow_smaller_final_batch, scope)


def _tensor_list(tensors) -> list:
    """A dict's values in the order of its sorted keys, else the list; as tensors."""
    if isinstance(tensors, dict):
        tensors = [tensors[k] for k in sorted(tensors, key=str)]
    elif isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        tensors = [tensors]
    tensors = [convert_to_tensor(t) for t in tensors]
    if not tensors:
        raise ValueError("Expected at least one tensor in batch().")
    return tensors


def _dtypes(lists) -> list:
    types = [t.dtype for t in lists[0]]
    for other in lists[1:]:
        if [t.dtype for t in other] != types:
            raise TypeError(f"Expected types to be {[t.name for t in types]} but got "
                            f"{[t.dtype.name for t in other]}")
    return types


def _shapes(lists, shapes, enqueue_many) -> list:
    if shapes is not None:
        return [TensorShape(s) for s in shapes]
    merged = []
    for i in range(len(lists[0])):
        shape = None
        for tensors in lists:
            static = tensors[i].shape
            if static.rank is None:
                raise ValueError(f"Cannot infer Tensor's rank: {tensors[i]}")
            if enqueue_many:
                if static.rank < 1:
                    raise ValueError(f"Shape {static} must have rank at least 1")
                static = static[1:]
            shape = static if shape is None else shape.merge_with(static)
        merged.append(shape)
    return merged


def _keep(keep_input, enqueue_many):
    """``keep_input`` as a bool tensor (None: keep all), its rank checked as TF1's."""
    if keep_input is None:
        return None
    keep = convert_to_tensor(keep_input, dtype=dtypes.bool_, name="keep_input")
    if keep.shape.rank not in (0, 1):
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    if keep.shape.rank == 1 and not enqueue_many:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    return keep


def _kept(tensors, keep, enqueue_many) -> list:
    """The examples of ``tensors`` that ``keep`` keeps, as a batch for ``enqueue_many``."""
    from ..ops import boolean_mask, expand_dims, fill, shape

    if not enqueue_many:
        tensors, keep = [expand_dims(t, 0) for t in tensors], expand_dims(keep, 0)
    elif keep.shape.rank == 0:
        keep = fill(shape(tensors[0])[:1], keep)
    return [boolean_mask(t, keep) for t in tensors]


def _enqueue(queue, lists, threads, enqueue_many, keep=None) -> None:
    """One enqueue op per tensor list (``_join``), or the one op ``threads`` times; with
    ``keep``, an ``enqueue_many`` of the kept examples."""
    if keep is not None:
        lists, enqueue_many = [_kept(t, keep, enqueue_many) for t in lists], True
    enqueue = queue.enqueue_many if enqueue_many else queue.enqueue
    ops = [enqueue(tensors) for tensors in lists]
    if threads is not None:
        ops = ops * threads
    add_queue_runner(QueueRunner(queue, ops))


def _dequeued(queue, original, batch_size, allow_smaller_final_batch, scope):
    if allow_smaller_final_batch:
        out = queue.dequeue_up_to(batch_size, name=scope)
    else:
        out = queue.dequeue_many(batch_size, name=scope)
    if isinstance(original, dict):
        out = out if isinstance(out, list) else [out]   # one component: TF1's single tensor
        return {k: out[i] for i, k in enumerate(sorted(original, key=str))}
    return out


def _fill_summary(name, size, kept_back, capacity) -> None:
    """How full the queue is (above ``kept_back``), a scalar summary as TF1 adds."""
    from ..ops import cast, maximum
    from ..summary import scalar

    over = maximum(0, size - kept_back) if kept_back else size
    scalar(name, cast(over, dtypes.float32) * (1.0 / (capacity - kept_back)))
