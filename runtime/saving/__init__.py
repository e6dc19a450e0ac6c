"""Saved models: writing a module's functions and variables, and loading them without code."""
