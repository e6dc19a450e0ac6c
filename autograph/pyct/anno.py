"""Annotations: facts that analyses attach to AST nodes for later passes to read.

>>> import gast
>>> node = gast.parse("x = 1").body[0]
>>> setanno(node, "live_out", {"x"})
>>> getanno(node, "live_out"), hasanno(node, "origin")
({'x'}, False)
"""

_FIELD = "_ag_anno"


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
