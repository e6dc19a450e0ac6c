"""Python source of every kind of syntax, for the printer's tests (as much as this Python reads)."""

import sys

SNIPPETS = {
    "precedence": """
x = -(1) ** 2
x = (-1) ** 2
x = 2 ** -1
x = (2 ** 3) ** 4
x = 2 ** 3 ** 4
x = (a, b)[0]
x = (1).real + 1.0.real + (1j).imag + True.real
x = not (a and b)
x = (not a) and b
x = a or b and c
x = (a or b) and c
x = a and b and c and (d or e)
x = a or b or c or d or e or f or g or h or i or j or k or l or m or n or (p + q)
x = a if b else (c if d else e)
x = (a if b else c) if d else e
x = a - (b - c) - d
x = a / (b * c) // d % e @ f
x = a | b ^ c & d << e >> f
x = ((a | b) ^ c) & d
x = a < b <= c != d is e is not f in g not in h
x = (a < b) < c
x = not a == b
x = -a ** b
x = (-a) ** b
x = ~(a + b)
x = +a - -b
x = (a + b).c
x = (a + b)(c)[d]
x = (yield)
x = yield a, b
x = (lambda: a)()
x = (lambda: (yield))
y = lambda a, b=1, *c, d, e=2, **f: a
y = lambda *, a: a
y = lambda: (a, b)
y = a if b else lambda: c
""",
    "collections and comprehensions": """
x = ()
x = (a,)
x = a,
x = (a, (b, c), [d, *e], {f, *g}, {h: i, **j})
x = {*()}
x = {}
x = [*a, *b]
x = [y for y in z if y if not y]
x = {y: w for y, w in z}
x = {y for y in z}
x = (y for y in z for w in y)
f(y for y in z)
f((y for y in z), w)
x = [y async for y in z]
x = [(y, w) for (y, w) in z]
x = [y for y in (lambda: z)()]
x = [y for y in (a if b else c)]
""",
    "calls and subscripts": """
f(a, *b, c=d, **e)
f(*a, *b, **c, **d)
f(a)(b)(c)
f(a, b)[c:d]
a[1:2, ::3]
a[:, 0]
a[..., 1:]
a[()]
a[(1,)]
a[1,]
a[b:c:d]
a[b:]
a[:b]
a[::b]
a[(b, c), d]
a[b, c][d]
a.b.c[d].e(f)
""",
    "walrus": """
if (n := len(a)) > 10:
    pass
x = [y := f(x), y ** 2]
f(a := 1)
f(b=(a := 1))
x = (y := 1)
x = a[(b := 1)]
x = {(a := 1): (b := 2)}
while (chunk := read()):
    pass
x = (y := (a + b))
print((a := 1), (b := 2))
""",
    "strings and numbers": r"""
x = 'a'
x = "it's"
x = 'say "hi"'
x = 'both \' and "'
x = 'tab\tnewline\nbackslash\\ bell\x07 unicode é \u2028'
x = b'bytes\x00'
x = u'unicode prefix'
x = 'implicit' 'concatenation'
x = 1e999
x = -1e999
x = 1e999j
x = 0.1 + 1j
x = 1_000_000
x = 0xff
x = None, True, False, ...
""",
    "f-strings": """
x = f"{name}: {two!r:>3} {'q'}"
x = f'{a!s}{b!a}{c:{width}.{precision}}'
x = f'{ {1: 2}[1] }'
x = f"{a}{{literal}}{b}"
x = f'''{"multi"}\\n{'line'}'''
x = f'{x=}'
x = f'{(lambda: 1)}'
x = f'{(yield)}'
""",
    "statements": """
import a
import a.b as c, d
from . import a
from ..a.b import c as d, e
from a import *
global a, b
nonlocal c
del a, b[c], d.e
del (a, b), [c]
assert a
assert a, 'message'
raise
raise a
raise a from b
return
return a
return a, b
return (yield)
pass
break
continue
a = b = c
a, b = c
a, = b
(a, b), c = d
[a, b] = c
a, *b = c
*a, = b
a += 1
a -= b
a *= c
a @= d
a /= e
a //= f
a %= g
a **= h
a >>= i
a <<= j
a &= k
a ^= l
a |= m
a.b += 1
a[b] -= 1
x: int
x: int = 1
(x): int = 1
a.b: int
a[b]: int = 1
x: 'forward' = None
""",
    "compound statements": """
if a:
    pass
elif b:
    pass
else:
    pass
if a:
    pass
else:
    x = 1
    if b:
        pass
while a:
    break
else:
    pass
for a, b in c:
    continue
else:
    pass
for a in b, c:
    pass
for (a, b), c in d:
    pass
for a, in b:
    pass
with a:
    pass
with a as b, c as (d, e), f as [g]:
    pass
with (yield):
    pass
try:
    pass
except:
    pass
try:
    pass
except A:
    pass
except (B, C) as e:
    pass
else:
    pass
finally:
    pass
try:
    pass
finally:
    pass
""",
    "definitions": """
@decorator
@decorator.with_call(1, b=2)
@(lambda f: f)
def f(a, /, b: int = 1, *args: str, c, d: 'x' = 2, **kwargs: bool) -> None:
    '''Docstring.'''
    return a

def g(a, b, /):
    pass

def h(*, a):
    pass

def i(a=1, b=(1, 2), *c):
    x = 1

    def inner():
        nonlocal x
        x += 1
    return inner

class A:
    pass

class B(A, metaclass=M, **kwargs):
    '''Doc.'''
    x = 1

    def method(self):
        return super().method()

    @property
    def p(self):
        return 1

@dataclass(frozen=True)
class C(Generic[T]):
    x: int = 0
""",
    "async": """
async def f(a):
    await a
    x = await a ** 2
    x = await (a + b)
    x = (await a)[0]
    x = [await y async for y in a if await y]
    async for a, b in c:
        pass
    else:
        pass
    async with a as b, c:
        pass
    yield a
    return (yield from a)
""",
    "generators": """
def f():
    yield
    yield a
    yield a, b
    yield (a, b)
    yield from a
    x = yield
    x = yield a
    x = yield from a
    f((yield))
    x = [(yield)]
    await (yield)
""",
    "match": """
match command.split():
    case [action]:
        pass
    case [action, obj]:
        pass
    case [Point(x=0, y=0), *rest]:
        pass
    case Point(1, y=2) | Point(2, 1):
        pass
    case {'key': value, 1: [a, *_], **rest}:
        pass
    case {}:
        pass
    case ():
        pass
    case (1 | 2 | 3) as number if number > 1:
        pass
    case [(1 | 2) as z, (a, b)]:
        pass
    case a.b.c | None | True | -1 | 1 + 2j | 'string' | b'bytes':
        pass
    case str() | bytes():
        pass
    case x:
        pass
    case _:
        pass
match a, b:
    case (x, y):
        pass
""",
}

if sys.version_info >= (3, 11):
    SNIPPETS["3.11"] = """
x = a[*b]
x = a[*b, c]
def f(*args: *Ts):
    pass
try:
    pass
except* A:
    pass
except* (B, C) as e:
    pass
"""
if sys.version_info >= (3, 12):
    SNIPPETS["3.12"] = """
type Point = tuple[float, float]
type ListOrSet[T] = list[T] | set[T]
def f[T: int, *Ts, **P](a: T) -> T:
    pass
class C[T](Base):
    pass
x = f"{"same quotes"}" + f'{f'{x}'}'
"""
