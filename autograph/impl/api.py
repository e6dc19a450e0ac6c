"""``to_graph``, ``to_code``, ``do_not_convert``, and ``converted_call`` (``ag__.call``).

>>> import autograph as ag
>>> def collatz_steps(n):
...     steps = 0
...     while n > 1:
...         n = n // 2 if n % 2 == 0 else 3 * n + 1
...         steps += 1
...     return steps
>>> ag.to_graph(collatz_steps)(27)
111
"""

from __future__ import annotations

import functools
import inspect
import threading
import types
import weakref

from autograph import operators
from autograph.converters.call_trees import is_left_alone
from autograph.impl import errors, features, transpiler
from autograph.operators import original_scope, side_effects
from autograph.operators.py_builtins import override_of
from autograph.pyct.parser import ConversionError
from runtime.core import source, tracebacks

_SCOPE_BUILTINS = frozenset(original_scope.OVERRIDES.values())
# original function -> converted function, apart for conversions with print converted
_instances = {False: weakref.WeakKeyDictionary(), True: weakref.WeakKeyDictionary()}
_depth = threading.local()


def do_not_convert(fn):
    """Marks ``fn`` to be called as it is from converted code, never converted.

    >>> import autograph as ag
    >>> @ag.do_not_convert
    ... def helper(x):
    ...     return x
    >>> ag.to_graph(helper) is helper
    True
    """
    fn.__autograph_do_not_convert__ = True
    return fn


def _underlying(fn):
    """The plain function behind a function, a method or a callable object, and what it is bound to."""
    if isinstance(fn, (types.MethodType,)):
        return fn.__func__, fn.__self__
    if inspect.isfunction(fn):
        return fn, None
    call = type(fn).__call__ if callable(fn) else None
    if inspect.isfunction(call):
        return call, fn
    return None, None


def to_graph(fn, recursive=True, experimental_optional_features=None):
    """The converted version of ``fn``: Python control flow that also builds graph control flow.

    Called with Python values it behaves exactly as ``fn``; with symbolic
    tensors, ``if``/``while``/``for`` on them become ``rt.cond``/``rt.while_loop``.
    Errors are reported at the user's own file and line. ``print`` stays Python's
    unless ``experimental_optional_features`` holds
    ``ag.experimental.Feature.BUILTIN_FUNCTIONS`` (or ``ALL``), as in TensorFlow; the
    functions ``fn`` calls are converted with the same features. (``recursive`` is
    TensorFlow's argument: the functions called are always converted here.)
    """
    return _to_graph(fn, features.uses_builtin_functions(experimental_optional_features))


def _to_graph(fn, builtin_functions):
    if hasattr(fn, "python_function"):  # an ag.function: convert what it wraps
        fn = fn.python_function
    if hasattr(fn, "__autograph_original__"):
        return fn  # converted already
    rewrapped = _rewrapped(fn, builtin_functions)
    if rewrapped is not None:
        return rewrapped
    if isinstance(fn, functools.partial):  # the function converted, its bound arguments kept
        return functools.partial(_to_graph(fn.func, builtin_functions), *fn.args, **fn.keywords)
    if isinstance(fn, types.MethodType) and not inspect.isfunction(fn.__func__):
        # a bound callable object
        return types.MethodType(_to_graph(fn.__func__, builtin_functions), fn.__self__)
    function, bound_to = _underlying(fn)
    if function is None:
        raise TypeError(f"to_graph expects a function, method or callable object, got {fn!r}")
    if getattr(function, "__autograph_do_not_convert__", False):
        return fn
    instances = _instances[builtin_functions]
    converted = instances.get(function)
    if converted is None:
        code = _converted_code(function, builtin_functions)
        converted = _with_user_errors(code, function, builtin_functions)
        converted.__autograph_original__ = function
        instances[function] = converted
    return types.MethodType(converted, bound_to) if bound_to is not None else converted


def _rewrapped(fn, builtin_functions):
    """A runtime wrapper of a user function (``rt.custom_gradient``'s, ``rt.recompute_grad``'s)
    made again around that function converted, or None for anything else: the wrapper is
    library code, run as it is; what it wraps is the user's, converted."""
    rewrap = getattr(fn, "__autograph_rewrap__", None)
    if rewrap is None or not hasattr(fn, "__wrapped__"):
        return None
    return rewrap(_to_graph(fn.__wrapped__, builtin_functions))


def _converted_code(function, builtin_functions):
    if errors.is_generated(function.__code__.co_filename):
        return function  # defined inside converted code: converted along with it
    code = transpiler.convert(function, builtin_functions)
    return transpiler.instantiate(code, function, _AG_NAMESPACE)


def to_code(fn, recursive=True, experimental_optional_features=None) -> str:
    """The source of ``fn`` converted, as a string.

    >>> import autograph as ag
    >>> def absolute(x):
    ...     if x < 0:
    ...         x = -x
    ...     return x
    >>> print(ag.to_code(absolute))
    def absolute(x):
    <BLANKLINE>
        def if_true():
            nonlocal x
            x = -x
        ag__.if_stmt(x < 0, if_true, None, ('x',))
        return x
    <BLANKLINE>
    """
    if hasattr(fn, "python_function"):
        fn = fn.python_function
    fn = getattr(fn, "__autograph_original__", fn)
    while isinstance(fn, functools.partial) or hasattr(fn, "__autograph_rewrap__"):
        fn = fn.func if isinstance(fn, functools.partial) else fn.__wrapped__
    if isinstance(fn, types.MethodType) and not inspect.isfunction(fn.__func__):
        fn = fn.__func__  # a callable object bound as a method: its __call__
    function, _ = _underlying(fn)
    if function is None:
        raise TypeError(f"to_code expects a function, method or callable object, got {fn!r}")
    builtin_functions = features.uses_builtin_functions(experimental_optional_features)
    return transpiler.convert(function, builtin_functions).source


def _with_user_errors(converted, original, builtin_functions):
    converting = features.converting

    @functools.wraps(converted)
    def run(*args, **kwargs):
        # Defaults are read at the call, as Python does: the original's, assigned since or not.
        if converted.__defaults__ is not original.__defaults__:
            converted.__defaults__ = original.__defaults__
        if converted.__kwdefaults__ is not original.__kwdefaults__:
            converted.__kwdefaults__ = original.__kwdefaults__
        depth = getattr(_depth, "value", 0)
        _depth.value = depth + 1
        outer = converting.builtin_functions  # the functions it calls convert as it was
        converting.builtin_functions = builtin_functions
        try:
            result = converted(*args, **kwargs)
            if side_effects.WATCHES:  # a staged statement is being traced: did the call change it?
                side_effects.after_call(original)
            return result
        except Exception as e:
            if depth:
                raise
            errors.add_user_frames(e)
            tracebacks.filter_traceback(e)  # the user's frames only, unless switched off
            raise
        finally:
            _depth.value = depth
            converting.builtin_functions = outer

    return run


def converted_call(fn):
    """``fn`` as converted code should call it: converted if it is user code, else as it is.

    A builtin that AutoGraph overloads gives its ``ag__`` version, however it
    was reached (``f = range; f(n)``), and a ``functools.partial`` of user code
    its converted function with the same arguments.
    """
    # (Any builtin reached as a value gives its overload, print too, as TensorFlow's
    # converted_call does whatever the features: they decide only what a direct call becomes.)
    override = override_of(fn)
    if override is not None:
        if override in _SCOPE_BUILTINS:  # reached as a value: where the call is, is not known
            return functools.partial(override, depth=None)
        return override
    if isinstance(fn, functools.partial):
        inner = converted_call(fn.func)
        return fn if inner is fn.func else functools.partial(inner, *fn.args, **fn.keywords)
    rewrapped = _rewrapped(fn, features.converting.builtin_functions)
    if rewrapped is not None:
        return rewrapped
    function, _ = _underlying(fn)
    if function is None or is_left_alone(function) or hasattr(fn, "get_concrete_function"):
        return fn
    if errors.is_generated(function.__code__.co_filename):
        return fn  # defined inside converted code: converted along with it
    if inspect.isgeneratorfunction(function) or inspect.iscoroutinefunction(function):
        return fn
    try:
        return _to_graph(fn, features.converting.builtin_functions)
    except ConversionError as e:
        source.warn(f"AutoGraph could not convert {fn!r} and runs it as it is: {e}")
        return fn


def _ag_namespace():
    """``ag__`` as converted code sees it: the operators, and ``call`` (``converted_call``)."""
    namespace = types.ModuleType("ag__", operators.__doc__)
    public = {k: v for k, v in vars(operators).items() if not k.startswith("_")}
    namespace.__dict__.update(public, call=converted_call)
    return namespace


_AG_NAMESPACE = _ag_namespace()
