"""Running graphs: tracing Python into graphs, optimising them, compiling them to Python, sessions."""
