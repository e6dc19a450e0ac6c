"""What the ``autograph`` command says when a request cannot be met: one line naming the file and
what is wrong, a non-zero exit status, and no traceback of the library."""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import autograph as ag

PROGRAM = textwrap.dedent(
    """
    import runtime as rt
    import autograph as ag

    value = 3


    def never_called():  # cannot be converted: must not be mentioned unless it is called
        yield 1


    def generates(n):
        yield n


    def collatz(n):
        steps = 0
        while n > 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps


    @ag.function(input_signature=[rt.TensorSpec([], rt.int32)])
    def step(n):
        return collatz(n)


    @ag.function
    def one_branch(x):
        if x > 0:
            y = x
        return y


    if __name__ == "__main__":
        print(collatz(27), step(rt.constant(27)).numpy())
        if "--generate" in __import__("sys").argv:
            print(list(generates(2)))
        if "--fail" in __import__("sys").argv:
            one_branch(rt.constant(1))
    """
)

LIBRARY_DIRS = tuple(
    os.path.dirname(os.path.abspath(m.__file__)) for m in (ag, __import__("runtime"))
)


def autograph(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "autograph", *args], capture_output=True, text=True, cwd=cwd
    )


@pytest.fixture
def program(tmp_path):
    (tmp_path / "model.py").write_text(PROGRAM)
    return tmp_path


def assert_one_line_error(result, *parts, status=1):
    assert result.returncode == status, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("autograph: ")
    for part in parts:
        assert part in lines[0], (part, lines[0])
    assert result.stdout == ""


def test_version_is_the_packages():
    result = autograph("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"autograph-numpy {ag.__version__}"


def test_help_lists_every_command_in_plain_text():
    result = autograph("--help")
    assert result.returncode == 0
    for command in ("to-code", "run", "graph", "show", "export"):
        assert f"    {command} " in result.stdout, command
    assert "``" not in result.stdout


def test_run_without_a_file_says_so():
    result = autograph("run")
    assert result.returncode == 2
    assert "give the FILE.py to run" in result.stderr and "args" not in result.stderr.split(":")[-1]


def test_to_code_of_a_value_that_is_not_a_function(program):
    assert_one_line_error(
        autograph("to-code", "model.py::value", cwd=program),
        "model.py",
        "value is not a function",
        "an int",
    )


def test_to_code_of_a_function_that_cannot_be_converted(program):
    result = autograph("to-code", "model.py::generates", cwd=program)
    assert_one_line_error(result, "model.py", "generates cannot be converted", "yield")


def test_unrelated_functions_are_not_mentioned(program):
    to_code = autograph("to-code", "model.py::collatz", cwd=program)
    assert to_code.returncode == 0 and to_code.stderr == ""
    assert to_code.stdout.startswith("def collatz(n):")
    run = autograph("run", "model.py", cwd=program)
    assert run.returncode == 0 and run.stderr == "", run.stderr
    assert run.stdout == "111 111\n"


def test_a_function_that_cannot_be_converted_runs_as_it_is_with_a_warning_where_called(program):
    result = autograph("run", "model.py", "--generate", cwd=program)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "111 111\n[2]\n"
    assert "generates runs unconverted" in result.stderr
    assert "model.py:" in result.stderr and "never_called" not in result.stderr


def test_an_error_of_the_program_is_its_traceback_without_the_librarys_frames(program):
    result = autograph("run", "model.py", "--fail", cwd=program)
    assert result.returncode == 1
    assert result.stderr.startswith("Traceback (most recent call last):")
    lines = PROGRAM.splitlines()
    call, test = (
        1 + lines.index(x) for x in ("        one_branch(rt.constant(1))", "    if x > 0:")
    )
    assert f'model.py", line {call}, in <module>' in result.stderr
    assert "ValueError: 'y' must also be initialized" in result.stderr
    assert f'model.py", line {test}, in one_branch' in result.stderr  # in user code
    assert not any(d in result.stderr for d in LIBRARY_DIRS), result.stderr


def test_an_error_while_loading_the_file_is_its_traceback_too(tmp_path):
    (tmp_path / "broken.py").write_text("def f(x):\n    return x\n\n\n1 / 0\n")
    result = autograph("to-code", "broken.py::f", cwd=tmp_path)
    assert result.returncode == 1
    assert 'broken.py", line 5, in <module>' in result.stderr
    assert "ZeroDivisionError" in result.stderr
    assert not any(d in result.stderr for d in LIBRARY_DIRS), result.stderr


def test_a_syntax_error_is_one_line_naming_the_file_and_line(tmp_path):
    (tmp_path / "broken.py").write_text("def f(x):\n    if x >\n")
    result = autograph("run", "broken.py", cwd=tmp_path)
    assert_one_line_error(result, "broken.py", "line 2", "SyntaxError")


@pytest.mark.parametrize("output", ["graph.xyz", "graph"])
def test_graph_refuses_an_output_whose_extension_names_no_format(program, output):
    result = autograph("graph", "model.py::step", "-o", output, cwd=program)
    assert_one_line_error(result, output, "cannot tell the format", ".svg", "--format")
    assert not (program / output).exists()


def test_graph_writes_dot_to_a_dot_or_gv_file(program):
    for name in ("g.dot", "g.gv"):
        result = autograph("graph", "model.py::step", "-o", name, cwd=program)
        assert result.returncode == 0, result.stderr
        assert (program / name).read_text().startswith("digraph")


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot program is not installed")
def test_graph_draws_a_pdf_for_a_pdf_file(program):
    result = autograph("graph", "model.py::step", "-o", "g.pdf", cwd=program)
    assert result.returncode == 0, result.stderr
    assert (program / "g.pdf").read_bytes().startswith(b"%PDF")


def test_export_refuses_an_output_whose_extension_is_not_onnx(program):
    result = autograph("export", "model.py::step", "-o", "model.txt", cwd=program)
    assert_one_line_error(result, "model.txt", ".onnx", "--format")
    assert not (program / "model.txt").exists()
