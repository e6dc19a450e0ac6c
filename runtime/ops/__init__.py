"""The op table's rows, one module per kind of op, and ``registry.bind``, which runs or records them."""
