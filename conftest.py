"""Collecting the tests: what needs an optional extra is left out when the extra is missing.

The JAX lowering (``runtime/xla``) needs the extra ``jax``; its tests under ``tests/``
skip themselves (``pytest.importorskip``), and its modules' examples (and the tests'
helper module) are not collected.
"""

import importlib.util

_NEED_JAX = ["runtime/xla/*", "tests/runtime/xla/xla_harness.py"]  # docs/: docs/conftest.py
collect_ignore_glob = [] if importlib.util.find_spec("jax") else _NEED_JAX
