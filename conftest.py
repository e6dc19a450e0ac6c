"""Collecting the tests: what needs an optional extra is left out when the extra is missing.

The JAX lowering (``runtime/xla``) and AutoGraph's JAX backend need the extra ``jax``; its tests under ``tests/``
skip themselves (``pytest.importorskip``), and its modules' examples (and the tests'
helper module) are not collected.
"""

import importlib.util

_NEED_JAX = [  # docs/: docs/conftest.py
    "runtime/xla/*",
    "tests/runtime/xla/xla_harness.py",
    "autograph/operators/jax_*.py",  # the JAX backend's modules, loaded only once JAX is
]
collect_ignore_glob = [] if importlib.util.find_spec("jax") else _NEED_JAX
