"""Op definitions, one module per kind of op; ``registry`` holds the table and ``bind``."""
