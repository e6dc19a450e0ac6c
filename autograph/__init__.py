"""autograph: Python control flow to graphs, and the ``@function`` tracing decorator.

The converter and ``function`` arrive with their own issues; the runtime they
build on is ``runtime``.
"""
