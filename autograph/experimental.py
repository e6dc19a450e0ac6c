"""``ag.experimental``: what TensorFlow keeps under ``tf.autograph.experimental``.

>>> import autograph as ag
>>> ag.experimental.set_loop_options is ag.lang.directives.set_loop_options
True
"""

from autograph.impl.api import do_not_convert
from autograph.lang.directives import set_loop_options

__all__ = ["do_not_convert", "set_loop_options"]
