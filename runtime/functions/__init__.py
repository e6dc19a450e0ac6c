"""Ops that run traced graphs: ``cond`` and ``while_loop`` trace their branches and bodies into
sub-graphs of one ``If`` or ``While`` op (``control_flow``); a traced function is called as one
``PartitionedCall`` op, compiled once and differentiable under a tape (``graph_function``)."""
