"""The conversion pipeline, the conversion cache, and mapping errors back to the user's lines."""
