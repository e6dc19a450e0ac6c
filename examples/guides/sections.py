"""Runs a guide program's sections in order, each under a ``== title ==`` line.

A guide is a notebook: its cells share names, so the sections run in one process, in the
guide's order. A section that raises does not stop the others: its exception is printed as
``!! Type: message`` (and the traceback to stderr), and the program exits with status 1 at
the end. ``tests/test_guides.py`` compares each section's text on its own.

    python examples/guides/function.py            # every section
    python examples/guides/function.py Tracing    # the sections named (their titles)
"""

import contextlib
import sys
import traceback


def section(sections, title):
    """A decorator adding the function to ``sections`` (a list) under ``title``."""

    def add(run):
        sections.append((title, run))
        return run

    return add


def run(sections, argv):
    """Runs the sections titled in ``argv`` (all when empty); the exit status to return."""
    wanted = set(argv)
    failed = False
    for title, run_section in sections:
        if wanted and title not in wanted:
            continue
        print(f"== {title} ==", flush=True)
        try:
            run_section()
        except Exception as error:  # noqa: BLE001 (the next section runs all the same)
            failed = True
            traceback.print_exc()
            print(f"!! {type(error).__name__}: {error}", flush=True)
    return 1 if failed else 0


def show(value):
    """What a notebook shows for a cell's last expression, as IPython's pretty printer
    writes it: a list or tuple too long for a line has one item a line (continuation lines
    indented by one), and an object without a ``__repr__`` of its own is ``<module.Class at
    0x...>``."""
    print(pretty(value))


def pretty(value):
    if isinstance(value, (list, tuple)) and type(value) in (list, tuple):
        items = [pretty(item) for item in value]
        opening, closing = ("[", "]") if isinstance(value, list) else ("(", ")")
        if isinstance(value, tuple) and len(items) == 1:
            closing = ",)"
        one_line = opening + ", ".join(items) + closing
        if len(one_line) <= 79 and "\n" not in one_line:
            return one_line
        return opening + ",\n ".join(item.replace("\n", "\n ") for item in items) + closing
    if type(value).__repr__ is object.__repr__:
        cls = type(value)
        return f"<{cls.__module__}.{cls.__qualname__} at {id(value):#x}>"
    return repr(value)


def main(sections):
    sys.exit(run(sections, sys.argv[1:]))


# The function guide's Setup: "Some helper code to demonstrate the kinds of errors you might
# encounter" (examples/guides/function.py and function_limitations.py use it).
@contextlib.contextmanager
def assert_raises(error_class):
    try:
        yield
    except error_class:
        print(f"Caught expected exception \n  {error_class}:")
        traceback.print_exc(limit=2)
    except Exception as e:
        raise e
    else:
        raise Exception(f"Expected {error_class} to be raised but no error was raised!")
