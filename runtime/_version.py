"""The version of the ``autograph-numpy`` distribution: the one place it is written.

``runtime.__version__``, ``autograph.__version__``, ``autograph --version`` and the
package metadata (``pyproject.toml`` reads it from here) all give this string.
"""

__version__ = "0.1.0"
