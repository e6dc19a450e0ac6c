"""Collecting the tests: what needs an optional extra is left out when the extra is missing.

The JAX lowering (``runtime/xla``, ``docs/xla.md``) needs the extra ``jax``; its tests
under ``tests/`` skip themselves (``pytest.importorskip``), and its modules' and page's
examples are not collected.
"""

import importlib.util

collect_ignore_glob = [] if importlib.util.find_spec("jax") else ["runtime/xla/*", "docs/xla.md"]
