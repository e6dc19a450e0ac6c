"""Static analysis of a function's statements: reads, writes, liveness, definedness."""
