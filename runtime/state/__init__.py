"""State that outlives one run: variables, and modules that collect them."""
