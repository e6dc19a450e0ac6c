"""Collecting the tests: what needs an optional extra is left out when the extra is missing,
and property tests have no time limit per example.

The JAX lowering (``runtime/xla``) and AutoGraph's JAX backend need the extra ``jax``, and the summaries' examples
(``rt.summary``) the extra ``tensorboard``; their tests under ``tests/`` skip themselves
(``pytest.importorskip``), and these modules' examples (and the tests' helper module) are
not collected.
"""

import importlib.util

from hypothesis import settings

# Hypothesis fails an example that runs over 200 ms by default: a collection pause or a busy
# CI machine makes that a failure of the machine, not of the code (the suite's own limits are
# on whole programs, with room). Tests that set their own settings keep them.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")

_NEEDS = {  # docs/: docs/conftest.py
    "jax": [
        "runtime/xla/*",
        "tests/runtime/xla/xla_harness.py",
        "autograph/operators/jax_*.py",  # the JAX backend's modules, loaded only once JAX is
    ],
    "tensorboard": [
        "runtime/summary.py",
        "runtime/views/summaries.py",
        "runtime/profiler.py",
        "runtime/keras/callbacks/tensorboard.py",  # its example writes event files
    ],
    "onnx": ["runtime/export/onnx_branches.py"],  # its example builds an onnx model
    "h5py": ["runtime/keras/saving/saving_api.py"],  # its example saves a .keras file
}
collect_ignore_glob = [
    path
    for module, paths in _NEEDS.items()
    if importlib.util.find_spec(module) is None
    for path in paths
]
# Run by hand with real Keras to write the .keras fixtures, never by the suite.
collect_ignore_glob.append("tests/runtime/keras/fixtures/make_fixtures.py")
