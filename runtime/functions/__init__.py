"""Ops that run traced graphs: ``cond`` and ``while_loop`` trace their branches and bodies into
sub-graphs of one ``If`` or ``While`` op (``control_flow``)."""
