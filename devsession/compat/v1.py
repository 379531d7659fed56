"""``import devsession.compat.v1 as tf``: TF1's API is devsession itself.

Importing this module replaces it in ``sys.modules`` with the ``devsession`` package
(already imported: it is this module's grandparent), so ``devsession.compat.v1 is
devsession`` and a script ported from ``import tensorflow.compat.v1 as tf`` gets every
name devsession has.
"""

import sys

sys.modules[__name__] = sys.modules[__name__.rsplit(".", 2)[0]]
