"""``ag.experimental``: what TensorFlow keeps under ``tf.autograph.experimental``.

>>> import autograph as ag
>>> ag.experimental.set_loop_options is ag.lang.directives.set_loop_options
True
>>> ag.experimental.Feature.BUILTIN_FUNCTIONS
<Feature.BUILTIN_FUNCTIONS: 'BUILTIN_FUNCTIONS'>
"""

from autograph.impl.api import do_not_convert
from autograph.impl.features import Feature
from autograph.lang.directives import set_loop_options

__all__ = ["Feature", "do_not_convert", "set_loop_options"]
