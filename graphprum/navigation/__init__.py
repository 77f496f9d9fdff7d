"""Navigation models: how a user moves from a unit to the units around it.

Their modules build scipy sparse matrices; numpy's submodules that importing
scipy would load for nothing are made lazy first
(:mod:`graphprum.lazy_numpy`).
"""

from graphprum.lazy_numpy import defer_numpy_extras

defer_numpy_extras()
