"""Annotations: facts that analyses attach to AST nodes for later passes to read.

Every key is a constant of ``Basic`` (what parsing and the converters record)
or ``Static`` (what the analyses of ``pyct.analysis`` find), never a bare
string: the keys are one closed set, each written once.

>>> import gast
>>> node = gast.parse("x = 1").body[0]
>>> setanno(node, Static.LIVE_OUT, {"x"})
>>> getanno(node, Static.LIVE_OUT), hasanno(node, Static.LIVE_IN)
({'x'}, False)
"""

_FIELD = "_ag_anno"


class Basic:
    """Keys of what parsing and the converters record on nodes."""

    SKIP_CONVERSION = "skip_conversion"
    """On a function: left as written (a generator, ``@ag.do_not_convert``, a match helper)."""

    USER_FUNCTION = "user_function"
    """On a function the user wrote: its name, which errors report for the lines it holds."""

    USER_SCOPE = "user_scope"
    """On a function, lambda or class the user wrote (not one conversion made): True."""

    READS_SCOPE = "reads_scope"
    """On a call of a scope builtin (``eval``, ``locals``...): the variables it may read."""

    IMMEDIATE = "immediate"
    """On a lambda called where it stands (a lazy operand): its reads are the expression's own."""

    TEST_MUTATES = "test_mutates"
    """On a while loop: what its test passes to callees, which may change it."""

    EXTRA_TEST_FLAGS = "extra_test_flags"
    """On a for loop: the flags (break, return) that also stop it."""

    LOOP_OPTIONS = "loop_options"
    """On a loop: the options ``ag.set_loop_options`` gave it, {option name: expression node}."""


class Static:
    """Keys of what the static analyses (``pyct.analysis``) find on statements."""

    LIVE_IN = "live_in"
    """The variables live before the statement."""

    LIVE_OUT = "live_out"
    """The variables live after the statement."""

    BODY_LIVE_IN = "body_live_in"
    """On a loop: the variables live at the start of its body."""

    HEAD_LIVE = "head_live"
    """On a for loop: the variables live before each iteration (its extra test's flags too)."""

    DEFINED_IN = "defined_in"
    """The variables defined on every path to the statement."""

    MAYBE_DEFINED_IN = "maybe_defined_in"
    """The variables defined on some path to the statement."""


KEYS = frozenset(
    value
    for namespace in (Basic, Static)
    for attribute, value in vars(namespace).items()
    if attribute.isupper()
)
"""Every annotation key: the values of ``Basic`` and ``Static``."""


def setanno(node, key, value):
    annotations = getattr(node, _FIELD, None)
    if annotations is None:
        annotations = {}
        setattr(node, _FIELD, annotations)
    annotations[key] = value


def getanno(node, key, default=None):
    return getattr(node, _FIELD, {}).get(key, default)


def hasanno(node, key):
    return key in getattr(node, _FIELD, {})
