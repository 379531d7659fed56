"""TF's ``tf.random.experimental`` as devsession has it: ``index_shuffle``
(``ops/index_shuffle.py``), ``stateless_shuffle`` (``ops/stateless_random.py``),
``stateless_fold_in`` / ``stateless_split`` (``fold_in`` and ``split``) and
``create_rng_state`` (``ops/stateless_seeds.py``), ``Generator``,
``Algorithm``, ``get_global_generator`` and ``set_global_generator``
(``random_generator.py``).  Anything else of it raises ``UnsupportedTF1Error`` naming
it."""

from .ops.index_shuffle import index_shuffle
from .ops.stateless_random import stateless_shuffle
from .ops.stateless_seeds import create_rng_state
from .ops.stateless_seeds import fold_in as stateless_fold_in
from .ops.stateless_seeds import split as stateless_split
from .random_generator import Algorithm, Generator, get_global_generator, set_global_generator

__all__ = ["index_shuffle", "stateless_shuffle", "stateless_fold_in", "stateless_split",
           "create_rng_state",
           "Algorithm", "Generator", "get_global_generator", "set_global_generator"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("random.experimental", name)
