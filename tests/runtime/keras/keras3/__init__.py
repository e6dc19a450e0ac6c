"""Keras 3's own tests, ported to ``rt.keras``: the same programs and expected values."""
