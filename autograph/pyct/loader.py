"""Loading generated source from a real file, so tracebacks, ``inspect`` and debuggers see it."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

from runtime.core import tracebacks

_directory = None


def _generated_dir():
    global _directory
    if _directory is None:
        _directory = tempfile.mkdtemp(prefix="autograph_")
        atexit.register(shutil.rmtree, _directory, True)
        # Errors list the user's own lines ("in user code"), not the generated ones.
        tracebacks.register_hidden_path(_directory, library=False)
    return _directory


def load_source(source, name, future_flags=0):
    """Executes ``source`` (code we generated, never read from elsewhere) from a new file.

    ``future_flags``: the ``__future__`` features the code is compiled with (those
    of the user's module), not this module's. Returns the file's namespace and its path.
    """
    fd, path = tempfile.mkstemp(prefix=f"{name}_", suffix=".py", dir=_generated_dir())
    with os.fdopen(fd, "w") as f:
        f.write(source)
    namespace = {"__file__": path, "__name__": f"autograph_generated_{name}"}
    exec(compile(source, path, "exec", flags=future_flags, dont_inherit=True), namespace)
    return namespace, path
