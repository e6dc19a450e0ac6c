"""``autograph export DIR_OR_FILE.py::NAME --format onnx -o FILE``, run by onnxruntime."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

ort = pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

PROGRAM = textwrap.dedent(
    """
    import autograph as ag
    import runtime as rt

    print("loading")


    class Counter(rt.Module):
        def __init__(self):
            super().__init__()
            self.total = rt.Variable(10.0)

        @ag.function(input_signature=[rt.TensorSpec([None], rt.float32)])
        def add(self, x):
            self.total.assign_add(rt.reduce_sum(x))
            return self.total * 1.0


    @ag.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    def step(x):
        if rt.reduce_sum(x) > 0:
            return x * 2.0
        return -x


    def plain(n):
        total = 0
        for i in rt.range(n):
            total += i
        return total


    def lengths(words):
        return rt.strings.length(words)


    counter = Counter()
    """
)


def autograph(*args):
    return subprocess.run(
        [sys.executable, "-m", "autograph", *args], capture_output=True, text=True
    )


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(PROGRAM)
    return path


def run(path, **feeds):
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, feeds)


def test_exports_a_function_with_an_input_signature(program, tmp_path):
    out = tmp_path / "step.onnx"
    result = autograph("export", f"{program}::step", "--format", "onnx", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"wrote {out}\n"  # the file's own output goes to stderr
    assert "loading" in result.stderr
    (got,) = run(out, x=np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(got, [2.0, 4.0])
    (got,) = run(out, x=np.array([-1.0], np.float32))
    np.testing.assert_array_equal(got, [1.0])


def test_exports_a_plain_function_for_a_signature(program, tmp_path):
    out = tmp_path / "plain.onnx"
    result = autograph("export", f"{program}::plain", "--signature", "int32[]", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert [int(run(out, n=np.array(n, np.int32))[0]) for n in (0, 1, 5)] == [0, 0, 10]


def test_exports_a_function_of_a_saved_model(program, tmp_path):
    saved = tmp_path / "saved"
    save = textwrap.dedent(
        f"""
        import runtime as rt
        import sys
        sys.path.insert(0, {str(program.parent)!r})
        from model import counter
        rt.saved_model.save(counter, {str(saved)!r}, signatures={{"serving_default": counter.add}})
        """
    )
    subprocess.run([sys.executable, "-c", save], check=True, capture_output=True)
    for target in (str(saved), f"{saved}::serving_default", f"{saved}::add"):
        out = tmp_path / "counter.onnx"
        result = autograph("export", target, "-o", str(out))
        assert result.returncode == 0, result.stderr
        (got,) = run(out, x=np.array([1.0, 2.0], np.float32))
        assert got == 13.0


def test_errors_are_one_line_naming_the_file_and_the_problem(program, tmp_path):
    out = tmp_path / "m.onnx"
    cases = {
        (f"{program}::lengths", "--signature", "string[None]"): ["StringLength", "model.py"],
        (f"{program}::nothing",): ["has no 'nothing'"],
        (f"{tmp_path}::missing",): [str(tmp_path)],
        (f"{program}::plain",): ["no input_signature"],
    }
    for args, expected in cases.items():
        result = autograph("export", *args, "-o", str(out))
        assert result.returncode == 1, (args, result.stdout)
        message = result.stderr.strip().splitlines()[-1]
        assert message.startswith("autograph:"), result.stderr
        for part in expected:
            assert part in message, (part, message)
    assert not out.exists()
