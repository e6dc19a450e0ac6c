"""Benchmarks: ``python -m benchmarks`` runs them and prints ratios against hand-written numpy."""
