"""numpy's rarely used submodules made lazy before scipy is imported.

``import scipy.sparse`` (scipy 1.17) copies numpy's namespace into its
array-API compatibility layer (``clone_module``): ``from numpy import *``
and ``getattr`` on every name of ``dir(numpy)``.  numpy imports its
submodules on first attribute access, so that copy imports ``numpy.f2py``,
``numpy.testing``, ``numpy.ma`` and ``numpy.polynomial``, about 60 ms of
every structural evaluation (``numpy.f2py`` alone 30 ms), none of which
scipy's sparse matrices or graphprum use.

:func:`defer_numpy_extras` puts a lazy module (:class:`importlib.util.LazyLoader`)
in their place first: the copy then holds a module object that is loaded,
whole and for real, the first time anything reads one of its attributes
(``numpy.testing.assert_allclose`` works as before).

Examples
--------
>>> defer_numpy_extras()
>>> import numpy
>>> numpy.ma.masked_array([1, 2], mask=[False, True]).sum()
np.int64(1)
"""

from __future__ import annotations

import importlib.util
import sys

#: Submodules numpy imports on first access that scipy's copy would import.
EXTRAS = ("f2py", "testing", "ma", "polynomial")


def defer_numpy_extras() -> None:
    """Make :data:`EXTRAS` lazy modules unless already imported (idempotent)."""
    import numpy

    for name in EXTRAS:
        full = f"numpy.{name}"
        if full in sys.modules or name in vars(numpy):
            continue
        spec = importlib.util.find_spec(full)
        if spec is None or spec.loader is None:
            continue
        loader = importlib.util.LazyLoader(spec.loader)
        spec.loader = loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[full] = module
        loader.exec_module(module)
        setattr(numpy, name, module)  # else numpy's __getattr__ imports it again
