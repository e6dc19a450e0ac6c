"""One module per language feature, each a ``transform(node, ctx)`` over a function's AST.

They run in a fixed order (see ``autograph.impl.transpiler``): jumps are
lowered to flags first, so that by the time control flow is converted every
block is structured.
"""
