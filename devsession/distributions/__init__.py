"""TF1's ``tf.distributions`` (``tf.compat.v1.distributions``): the distribution classes
built from devsession's ops, so their log-densities, entropies and KL divergences
differentiate, and their reparameterised samples too.  Anything else of
``tf.distributions`` raises ``UnsupportedTF1Error`` naming it."""

from .distribution import (FULLY_REPARAMETERIZED, NOT_REPARAMETERIZED, Distribution,
                           ReparameterizationType)
from .kullback_leibler import RegisterKL, kl_divergence
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .dirichlet import Dirichlet
from .dirichlet_multinomial import DirichletMultinomial
from .gamma import Exponential, Gamma
from .laplace import Laplace
from .multinomial import Multinomial
from .normal import Normal
from .student_t import StudentT
from .uniform import Uniform

__all__ = ["Distribution", "ReparameterizationType", "FULLY_REPARAMETERIZED",
           "NOT_REPARAMETERIZED", "kl_divergence", "RegisterKL", "Normal", "Uniform",
           "Bernoulli", "Categorical", "Laplace", "Exponential", "Gamma", "Beta",
           "Multinomial", "Dirichlet", "DirichletMultinomial", "StudentT"]


def __getattr__(name: str):
    from ..unsupported import missing

    raise missing("distributions", name)
