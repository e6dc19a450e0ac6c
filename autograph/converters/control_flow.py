"""``if``, ``while`` and ``for`` become functions and a call that decides at run time.

    if x > 0:                       def if_true():
        y = x * 2                       nonlocal y
    else:                   ->          y = x * 2
        y = -x                      def if_false():
                                        nonlocal y
                                        y = -x
                                    y = ag__.Undefined('y')
                                    ag__.if_stmt(x > 0, if_true, if_false, ('y',))

The carried variables (the *state*) come from the analyses: the symbols a
statement assigns or changes in place that may be read after it (for a loop,
also in its next iteration), and the parts of objects (``x['b']``, ``self.n``)
it writes. Variables only the statement itself or closures read are *optional*
state (``optional=(...)``): shared, but a graph need not give them a value. A
state variable not certainly defined before the statement starts as
``ag__.Undefined``, so that errors can name it. The call names the state; the
functions that assign it declare it ``nonlocal``, and so hold the cells
through which a staged statement reads and writes it (``operators.state``).
"""

from __future__ import annotations

import re

import gast

from autograph.converters import directives
from autograph.converters.base import (
    StatementConverter,
    ag_attribute,
    child_blocks,
    declarations,
    function_def,
    name,
    new_node,
    statements,
)
from autograph.pyct import anno, walk
from autograph.pyct.analysis.activity import Activity, base_name, is_composite, parameters


class _Scope:
    """What the converter knows of one user function while it converts its statements."""

    __slots__ = ("globals", "locals", "captured", "effects", "hoisted")

    def __init__(self, fn_node, activity):
        self.globals = {
            n for s in walk.statements(fn_node.body) if isinstance(s, gast.Global) for n in s.names
        }
        functions = []
        self.locals = _local_names(fn_node, functions, activity) - self.globals
        # Closures defined in the function share its variables' cells: what they read must
        # stay in those cells, as if read after every statement.
        self.captured = activity.captured(fn_node.body) & self.locals
        # What calling a function defined here assigns (its nonlocal variables): a block that
        # names the function (calls it, say) assigns them too.
        self.effects = {}
        for fn in functions:
            assigned = {w for w in activity.writes(fn) if base_name(w) in self.locals} - {fn.name}
            if assigned:
                self.effects[fn.name] = assigned
        self.hoisted = []  # names bound once, at the top of the function


class _ControlFlowConverter(StatementConverter):
    def __init__(self, ctx, activity):
        super().__init__(ctx)
        self._scopes = []  # a _Scope for each enclosing user function
        self._declared = []  # what enclosing converted statements of this function declare
        # Asked only about code not converted yet: what each statement's blocks write, before
        # they are converted, is what their functions declare.
        self._activity = activity

    # --- scopes ---------------------------------------------------------------------------

    def visit_FunctionDef(self, node):
        if anno.getanno(node, anno.Basic.SKIP_CONVERSION):
            return node
        scope = _Scope(node, self._activity)
        self._scopes.append(scope)
        saved, self._declared = self._declared, []
        node.body = self.visit_block(node.body)
        self._declared = saved
        self._scopes.pop()
        if scope.hoisted:
            inits = [s for n in sorted(set(scope.hoisted)) for s in _undefined(n, node)]
            docstring = _has_docstring(node.body)
            node.body = node.body[:docstring] + inits + node.body[docstring:]
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_AnnAssign(self, node):
        if not self._declared or not isinstance(node.target, gast.Name):
            return node
        # Inside a branch or a loop body (a function now) the name may be declared nonlocal,
        # which an annotation cannot be: the annotation goes, the assignment stays.
        if node.value is None:
            return []
        assign = new_node(gast.Assign, targets=[node.target], value=node.value, type_comment=None)
        assign.lineno = node.lineno
        return assign

    # --- state ----------------------------------------------------------------------------

    def _state(self, node, writes, mutated, live):
        """(carried, optional, declared, inits) of a statement that assigns ``writes`` and
        changes ``mutated`` in place, where ``live`` is what may be read after it.

        It carries what it changes that may be read later: a variable it assigns or changes
        in place (a list it appends to), a part (``x['b']``, ``self.n``) of an object that
        exists before it. A variable it assigns that only closures, or the statement itself
        before assigning it, read, or a local container it changes that nothing reads later,
        is *optional*: it shares it with the code around, but need not give it a value. Its
        functions declare nonlocal what it carries or shares (``declared``); ``inits`` bind
        those not certainly bound before it.
        """
        scope = self._scopes[-1]
        live_in = anno.getanno(node, anno.Static.LIVE_IN, set())
        carried, optional = set(), set()
        nested = self._nested_writes(node)
        for sym in writes | mutated:
            if is_composite(sym):
                # A part of an object made inside the block, or at a key the block changes,
                # is not the block's to carry.
                if base_name(sym) in live_in and not _named_keys(sym) & writes:
                    carried.add(sym)
            elif sym in writes or sym in scope.locals:  # assigned, or a local changed in place
                if sym in live:
                    carried.add(sym)
                elif sym in scope.captured or sym in live_in or sym not in writes:
                    # A container the statement changes stays one object: what a branch or
                    # an iteration did to it must not leak into the other's trace.
                    optional.add(sym)
                elif sym in nested and sym not in self.ctx.namer.made:
                    # Assigned by a block nested in its own (whose function declares it
                    # nonlocal): that reaches the enclosing function's variable, so this
                    # statement must restore it after tracing each branch, as its state.
                    # (The flags and return value jumps make are guarded by the flags.)
                    optional.add(sym)
        declared = {s for s in carried | optional if s in writes and not is_composite(s)}
        defined = anno.getanno(node, anno.Static.DEFINED_IN, set())
        maybe = anno.getanno(node, anno.Static.MAYBE_DEFINED_IN, set())
        enclosing = set().union(*self._declared) if self._declared else set()
        inits = []
        for sym in sorted(declared):
            if sym in defined or sym in scope.globals or sym in enclosing:
                continue  # bound already: by the user, or by an enclosing statement
            if sym in maybe and sym in live_in:
                scope.hoisted.append(sym)  # its earlier value may matter: bind it once, at the top
            else:
                inits += _undefined(sym, node)
        return sorted(carried), sorted(optional), declared, inits

    def _unsupported(self, symbols):
        scope = self._scopes[-1]
        written_globals = [s for s in symbols if s in scope.globals]
        if written_globals:
            return f"it assigns the global variable '{written_globals[0]}', which a graph cannot"
        return None

    def _function(self, fn_name, body, declared, writes, node, params=()):
        """``def fn_name(params): body``, declaring the variables of ``declared`` that its code,
        as the user wrote it, assigns (``writes``): only those need declaring, as reads reach
        the enclosing scope anyway.
        """
        scope = self._scopes[-1]
        names = sorted(s for s in declared if s in writes)
        nonlocals = [n for n in names if n not in scope.globals]
        globals_ = [n for n in names if n in scope.globals]
        line = node.lineno
        body = declarations(globals_, nonlocals, line) + (body or [gast.Pass(lineno=line)])
        return function_def(fn_name, params, body, line)

    def _call(self, operator, node, args, symbols, **keywords):
        """``ag__.operator(args, keywords)``, told why staging is refused if it must be."""
        reason = self._unsupported(symbols)
        if reason:
            keywords["unsupported"] = _text(reason)
        keywords = [gast.keyword(arg=k, value=v) for k, v in keywords.items()]
        call = new_node(gast.Call, func=ag_attribute(operator), args=args, keywords=keywords)
        return new_node(gast.Expr, value=call, lineno=node.lineno)

    # --- statements -----------------------------------------------------------------------
    # Names are taken before the body is converted, so outer functions get the plain names.

    def _inner(self, declared, *blocks):
        """Converts nested blocks; what this statement declares needs no binding inside them."""
        self._declared.append(declared)
        try:
            return [self.visit_block(block) for block in blocks]
        finally:
            self._declared.pop()

    def _nested_writes(self, node):
        """The variables that statements with blocks of their own, inside the blocks of
        ``node`` that become functions, share with the code around them (their functions
        declare them nonlocal); an ``elif`` is at the level of its ``if``."""
        found = set()
        blocks = [node.body] + ([node.orelse] if isinstance(node, gast.If) else [])
        for block in blocks:
            if block is node.orelse and len(block) == 1 and isinstance(block[0], gast.If):
                found |= self._nested_writes(block[0])
                continue
            found |= self._shared_in(block)
        return found

    def _shared_in(self, block):
        """What the compound statements of ``block`` share (``_shared``), scopes aside."""
        found = set()
        for stmt in block:
            if child_blocks(stmt) and not isinstance(stmt, _SCOPES):
                found |= self._shared(stmt)
        return found

    def _shared(self, stmt):
        """What a compound statement assigns that its functions declare nonlocal: what may be
        read around it, and what blocks nested in it share."""
        if not isinstance(stmt, (gast.If, gast.For, gast.While)):  # no functions of its own
            return set().union(*(self._shared_in(block) for _, block in child_blocks(stmt)))
        writes = self._activity.facts(stmt).writes
        live = anno.getanno(stmt, anno.Static.LIVE_OUT, set()) | anno.getanno(
            stmt, anno.Static.LIVE_IN, set()
        )
        return writes & (live | self._scopes[-1].captured | self._nested_writes(stmt))

    def _writes(self, *nodes):
        activity = self._activity
        writes, mutated = set(), set()
        effects = self._scopes[-1].effects
        for n in nodes:
            facts = activity.facts(n)
            writes |= facts.writes
            mutated |= facts.mutated
            if effects:
                for used in effects.keys() & facts.reads:
                    writes |= effects[used]
        return writes, mutated

    def visit_If(self, node):
        body_writes, body_mutated = self._writes(node.body)
        orelse_writes, orelse_mutated = self._writes(node.orelse)
        live = anno.getanno(node, anno.Static.LIVE_OUT, set())
        symbols, optional, declared, before = self._state(
            node, body_writes | orelse_writes, body_mutated | orelse_mutated, live
        )
        namer = self.ctx.namer
        if_true = namer.new("if_true")
        if_false = namer.new("if_false") if node.orelse else None
        elif_ = len(node.orelse) == 1 and isinstance(node.orelse[0], gast.If)
        body, orelse = self._inner(declared, node.body, node.orelse)
        defs = [self._function(if_true, body, declared, body_writes, node)]
        args = [node.test, name(if_true)]
        if if_false is not None:
            if elif_:
                # An elif's functions go beside this if's: a chain of them nests no deeper.
                hoisted = [s for s in orelse if isinstance(s, gast.FunctionDef)]
                orelse = [s for s in orelse if not isinstance(s, gast.FunctionDef)]
                defs += hoisted
            defs.append(self._function(if_false, orelse, declared, orelse_writes, node))
            args.append(name(if_false))
        if symbols or optional:
            if if_false is None:
                args.append(_text(None))
            args.append(_names_tuple(symbols))
        call = self._call("if_stmt", node, args, symbols, **_optional(optional))
        return defs + before + [call]

    def visit_While(self, node):
        test_writes, test_mutated = self._writes(node.test)  # the test may assign (n := n // 2)
        body_writes, body_mutated = self._writes(node.body)
        # What a test moved into the body passes to a function that may change it in place
        # (pop(stack)): optional state, carried where a loop can carry it (a list), left
        # alone where it cannot (an object of the user's).
        passed = anno.getanno(node, anno.Basic.TEST_MUTATES, set()) - body_writes - body_mutated
        live = anno.getanno(node, anno.Static.LIVE_OUT, set()) | anno.getanno(
            node, anno.Static.LIVE_IN, set()
        )
        symbols, optional, declared, before = self._state(
            node, body_writes | test_writes, body_mutated | test_mutated | passed, live
        )
        optional = sorted(set(optional) | (passed & set(symbols)))
        symbols = [s for s in symbols if s not in passed]
        namer = self.ctx.namer
        loop_test, loop_body = namer.new("loop_test"), namer.new("loop_body")
        body, orelse = self._inner(declared, node.body, node.orelse)
        test_return = statements("return test", node, test=node.test)
        defs = [
            self._function(loop_test, test_return, declared, test_writes, node),
            self._function(loop_body, body, declared, body_writes, node),
        ]
        args = [name(loop_test), name(loop_body)] + _state_args(symbols, optional)
        call = self._call(
            "while_stmt", node, args, symbols, **_optional(optional), **_loop_options(node)
        )
        return defs + before + [call] + orelse

    def visit_For(self, node):
        flags = anno.getanno(node, anno.Basic.EXTRA_TEST_FLAGS, ())
        writes, mutated = self._writes(node.body, node.target)
        live = anno.getanno(node, anno.Static.LIVE_OUT, set()) | anno.getanno(
            node, anno.Static.HEAD_LIVE, set()
        )
        symbols, optional, declared, before = self._state(node, writes, mutated, live)
        namer = self.ctx.namer
        loop_body = namer.new("loop_body")
        simple_target = isinstance(node.target, gast.Name) and node.target.id not in declared
        item = None if simple_target else namer.new("item")
        body, orelse = self._inner(declared, node.body, node.orelse)
        if simple_target:
            params = [node.target.id]
        else:
            params = [item]
            body = statements("target = item", node, target=node.target, item=item) + body
        body_def = self._function(loop_body, body, declared, writes, node, params)
        args = [node.iter, name(loop_body)] + _state_args(symbols, optional)
        # Set by a break or return, a flag stops the loop before its next iteration. One the
        # body never sets (a return in the loop's else clause) is False all along.
        stop_on = [f for f in flags if f in writes]
        keywords = {"stop_on": _names_tuple(stop_on)} if stop_on else {}
        keywords.update(_optional(optional))
        call = self._call("for_stmt", node, args, symbols, **keywords, **_loop_options(node))
        return [body_def] + before + [call] + orelse


_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)


def _loop_options(node):
    """``options=`` of a loop whose body begins with ``set_loop_options`` (``directives``)."""
    options = directives.options_dict(node)
    return {"options": options} if options is not None else {}


def _local_names(fn_node, functions, activity):
    """The names ``fn_node`` binds in its own scope: parameters, assigned names, nested functions
    and classes, less those it declares global or nonlocal. The functions it defines are
    added to ``functions``.

    Its statements are listed, not its every node: the activity of each is known already.
    """
    names = parameters(fn_node.args)
    declared = set()
    stack = list(fn_node.body)
    while stack:
        stmt = stack.pop()
        cls = type(stmt)
        if cls is gast.Nonlocal or cls is gast.Global:
            declared.update(stmt.names)
        elif cls in (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef):
            if cls is not gast.ClassDef:
                functions.append(stmt)
            continue  # a scope of its own
        for _, block in child_blocks(stmt):
            stack.extend(block)
    for stmt in fn_node.body:
        names |= {w for w in activity.writes(stmt) if not is_composite(w)}
    return names - declared


def _named_keys(sym):
    """The names a composite symbol uses as keys: ``{'k'}`` for ``x[k].y``."""
    return {part[1:-1] for part in _KEYS.findall(sym) if part[1:-1].isidentifier()}


_KEYS = re.compile(r"\[[^\[\]]*\]")


def _undefined(sym, node):
    return statements("sym = ag__.Undefined(sym_name)", node, sym=sym, sym_name=_text(sym))


def _text(value):
    return new_node(gast.Constant, value=value, kind=None)


def _state_args(symbols, optional=()):
    """The last argument of a loop's call: the names of what it carries, if anything."""
    return [_names_tuple(symbols)] if symbols or optional else []


def _optional(optional):
    """The keyword naming the optional state, if there is any."""
    return {"optional": _names_tuple(optional)} if optional else {}


def _names_tuple(symbols):
    return new_node(gast.Tuple, elts=[_text(s) for s in symbols], ctx=new_node(gast.Load))


def _has_docstring(body):
    first = body[0] if body else None
    return int(
        isinstance(first, gast.Expr)
        and isinstance(first.value, gast.Constant)
        and isinstance(first.value.value, str)
    )


def transform(node, ctx, activity=None):
    """Converts the control flow of ``node`` (a FunctionDef annotated by the analyses).

    ``activity`` (an ``Activity``) may be the analyses' own: this converter asks
    it what statements write as the user wrote them (a write ``ag__.ld(o).v = x``
    that the variables converter made of ``o.v = x`` is still one of ``o.v``).
    """
    return _ControlFlowConverter(ctx, activity or Activity()).visit(node)
