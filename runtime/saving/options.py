"""``rt.saved_model.SaveOptions``: TensorFlow's options for a save, accepted and recorded.

None of them changes what this project writes: there are no op namespaces, debug files,
devices, distributed variables, custom-gradient registrations, image formats, savers or
shards here. They are accepted so that a TensorFlow program passing them runs unchanged.

>>> options = SaveOptions(save_debug_info=True)
>>> options.save_debug_info, options.function_aliases
(True, {})
"""

from __future__ import annotations


class SaveOptions:
    """Options for ``rt.saved_model.save(obj, path, options=...)``, with TensorFlow's keywords.

    Each is kept as an attribute; none has an effect on the files written (see the module
    docstring).
    """

    def __init__(
        self,
        namespace_whitelist=None,
        save_debug_info=False,
        function_aliases=None,
        experimental_debug_stripper=False,
        experimental_io_device=None,
        experimental_variable_policy=None,
        experimental_custom_gradients=True,
        experimental_image_format=False,
        experimental_skip_saver=False,
        experimental_sharding_callback=None,
        extra_tags=None,
    ):
        self.namespace_whitelist = list(namespace_whitelist or [])
        self.save_debug_info = bool(save_debug_info)
        self.function_aliases = dict(function_aliases or {})
        self.experimental_debug_stripper = bool(experimental_debug_stripper)
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_custom_gradients = bool(experimental_custom_gradients)
        self.experimental_image_format = bool(experimental_image_format)
        self.experimental_skip_saver = bool(experimental_skip_saver)
        self.experimental_sharding_callback = experimental_sharding_callback
        self.extra_tags = extra_tags

    def __repr__(self):
        return "rt.saved_model.SaveOptions()"


def check_options(options):
    """``options`` is None or a SaveOptions, as TensorFlow requires (a TypeError otherwise)."""
    if options is not None and not isinstance(options, SaveOptions):
        raise TypeError(
            f"options must be a rt.saved_model.SaveOptions or None, got {type(options).__name__}"
        )


class LoadOptions:
    """Options for ``rt.saved_model.load(path, options=...)``, with TensorFlow's keywords, kept
    as attributes; none changes what is loaded (there are no devices or partial checkpoints).

    >>> LoadOptions(allow_partial_checkpoint=True).allow_partial_checkpoint
    True
    """

    def __init__(
        self,
        allow_partial_checkpoint=False,
        experimental_io_device=None,
        experimental_skip_checkpoint=False,
        experimental_variable_policy=None,
        experimental_load_function_aliases=False,
    ):
        self.allow_partial_checkpoint = bool(allow_partial_checkpoint)
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = bool(experimental_skip_checkpoint)
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_load_function_aliases = bool(experimental_load_function_aliases)

    def __repr__(self):
        return "rt.saved_model.LoadOptions()"


SERVE = "serve"  # the one tag a saved model of this project has, as TensorFlow's save writes


def check_load_arguments(path, tags, options):
    """``tags`` must name the model's tag set (``{"serve"}``) and ``options`` be None or a
    LoadOptions, as TensorFlow requires (a ValueError, a TypeError)."""
    if options is not None and not isinstance(options, LoadOptions):
        raise TypeError(
            f"options must be a rt.saved_model.LoadOptions or None, got {type(options).__name__}"
        )
    if tags is None:
        return
    given = {tags} if isinstance(tags, str) else set(tags)
    if given != {SERVE}:
        raise ValueError(
            f"Got an incompatible argument to `tags`: {tags}. The SavedModel at {path} has one "
            f"MetaGraph with tags ['{SERVE}']. You may omit the argument, pass 'None', or pass "
            "matching tags."
        )
