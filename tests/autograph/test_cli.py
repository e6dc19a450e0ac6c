"""The command line: ``autograph to-code FILE.py::NAME``, ``autograph run FILE.py``, ``python -m autograph``."""

import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent(
    """
    import sys
    import runtime as rt


    def collatz_steps(n):
        steps = 0
        while n > 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps


    if __name__ == "__main__":
        g = rt.Graph()
        with g.as_default():
            n = rt.placeholder(rt.int32, [])
            out = collatz_steps(n)  # a tensor `while`: works only because run converts it
        print(sys.argv[1:], collatz_steps(27), rt.Session(g).run(out, {n: 27}))
    """
)


def autograph(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "autograph", *args], capture_output=True, text=True, cwd=cwd
    )


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "collatz.py"
    path.write_text(PROGRAM)
    return path


def test_run_converts_top_level_functions_and_passes_arguments(program):
    result = autograph("run", str(program), "--epochs", "3")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "['--epochs', '3'] 111 111\n"


def test_run_without_conversion_fails_as_plain_python_would(program):
    plain = subprocess.run([sys.executable, str(program)], capture_output=True, text=True)
    assert plain.returncode == 1
    assert "OperatorNotAllowedInGraphError" in plain.stderr


def test_to_code_prints_the_converted_function(program):
    result = autograph("to-code", f"{program}::collatz_steps")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("def collatz_steps(n):")
    assert "ag__.while_stmt(loop_test, loop_body" in result.stdout
    compile(result.stdout, "converted", "exec")


def test_the_autograph_script_is_installed(program):
    script = subprocess.run(
        [
            sys.executable,
            "-c",
            "import shutil, sys; print(shutil.which('autograph', path=sys.argv[1]))",
            str(__import__("pathlib").Path(sys.executable).parent),
        ],
        capture_output=True,
        text=True,
    )
    path = script.stdout.strip()
    assert path and path != "None"
    result = subprocess.run(
        [path, "to-code", f"{program}::collatz_steps"], capture_output=True, text=True
    )
    assert result.returncode == 0 and result.stdout.startswith("def collatz_steps")


def test_errors_in_the_users_file_name_its_file_and_line(tmp_path):
    path = tmp_path / "mistake.py"
    path.write_text(
        textwrap.dedent(
            """
            import runtime as rt


            def f(x):
                if x > 0:
                    y = 1
                return y


            with rt.Graph().as_default():
                f(rt.placeholder(rt.int32, []))
            """
        )
    )
    result = autograph("run", str(path))
    assert result.returncode == 1
    assert "'y' must also be initialized" in result.stderr
    assert f'File "{path}", line 6, in f' in result.stderr


def test_syntax_errors_name_the_file_and_line(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("def f(x):\n    if x >\n")
    result = autograph("run", str(path))
    assert result.returncode == 1
    assert f'File "{path}", line 2' in result.stderr and "SyntaxError" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "missing.py"], "no such file"),
        (["to-code", "collatz.py"], "expected FILE.py::NAME"),
        (["to-code", "collatz.py::nope"], "has no 'nope'"),
    ],
)
def test_bad_requests_get_one_line_errors(program, args, message):
    result = autograph(*args, cwd=program.parent)
    assert result.returncode == 1
    assert message in result.stderr and "Traceback" not in result.stderr
