"""TF1.15's ``tf.random`` spellings of the random ops (``devsession/ops/random.py``):
``normal`` is ``random_normal``, ``uniform`` is ``random_uniform``, ``shuffle`` is
``random_shuffle``, ``categorical`` and ``multinomial`` draw classes from logits (the
``Multinomial`` op); ``gamma`` and ``poisson`` draw per-element Gamma and Poisson values
(``RandomGamma``, ``RandomPoissonV2``: ``ops/random_rates.py``, which this module's
import registers); ``stateless_uniform``, ``stateless_normal``,
``stateless_truncated_normal``, ``stateless_categorical`` and ``stateless_multinomial``
give the same values for the same seed, TF's (``ops/stateless_random.py``), as does
``stateless_poisson``, ``stateless_gamma``, ``stateless_binomial`` and
``stateless_parameterized_truncated_normal``
(``ops/stateless_random_rates.py``), and
``split``, ``fold_in`` and ``create_rng_state`` make seeds for them
(``ops/stateless_seeds.py``); ``get_seed`` is TF1's ``tf.get_seed``; ``experimental``
has ``index_shuffle`` and the seed makers (``random_experimental.py``); ``Generator``,
``Algorithm``, ``get_global_generator`` and ``set_global_generator`` are TF 2's
stateful generator (``random_generator.py``); the candidate
samplers (log-uniform, uniform, learned and fixed unigram, all) are ``ds.nn``'s.  Anything
else of ``tf.random`` raises ``UnsupportedTF1Error`` naming it."""

from .ops.candidate_sampling import log_uniform_candidate_sampler, uniform_candidate_sampler
from .ops.candidate_sampling import (all_candidate_sampler, fixed_unigram_candidate_sampler,
                                     learned_unigram_candidate_sampler)
from .ops.random import random_normal as normal
from .ops.random import random_shuffle as shuffle
from .ops.random import random_uniform as uniform
from .ops.random import categorical, multinomial, set_random_seed, truncated_normal
from .ops.random_rates import random_gamma as gamma
from .ops.random_rates import random_poisson_v2 as poisson
from .ops.stateless_random import stateless_categorical, stateless_multinomial
from .ops.stateless_random import stateless_random_normal as stateless_normal
from .ops.stateless_random import stateless_random_uniform as stateless_uniform
from .ops.stateless_random import stateless_truncated_normal
from .ops.stateless_seeds import create_rng_state, fold_in, split
from .ops.stateless_random_rates import stateless_random_poisson as stateless_poisson
from .ops.stateless_random_rates import stateless_random_gamma as stateless_gamma
from .ops.stateless_random_rates import stateless_random_binomial as stateless_binomial
from .ops.stateless_random_rates import stateless_parameterized_truncated_normal
from . import random_experimental as experimental
from .ops.random import get_seed
from .random_generator import Algorithm, Generator, get_global_generator, set_global_generator

__all__ = ["normal", "uniform", "truncated_normal", "shuffle", "set_random_seed",
           "log_uniform_candidate_sampler", "uniform_candidate_sampler", "categorical",
           "multinomial", "gamma", "poisson", "stateless_uniform", "stateless_normal",
           "stateless_truncated_normal", "stateless_categorical", "stateless_multinomial",
           "all_candidate_sampler", "fixed_unigram_candidate_sampler",
           "learned_unigram_candidate_sampler", "split", "fold_in", "create_rng_state",
           "get_seed", "stateless_poisson", "stateless_gamma", "stateless_binomial",
           "stateless_parameterized_truncated_normal", "experimental", "Generator",
           "Algorithm", "get_global_generator", "set_global_generator"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("random", name)
