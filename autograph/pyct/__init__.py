"""Python-to-Python machinery on gast: parsing, templates, naming, source maps, loading."""
