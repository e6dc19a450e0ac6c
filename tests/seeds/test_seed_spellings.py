"""The seeds' own spellings, as a newcomer copies them: ``tf.compat.v1``, keyword arguments
everywhere, ``experimental_run_functions_eagerly``, and a loaded model's ``signatures``."""

import pytest

import autograph as ag
import runtime as rt


def test_seed_000_the_tensorflow_1_graph_through_compat_v1():
    # "TensorFlow 2.0 计算图": every argument by keyword, as the seed writes them.
    graph = rt.compat.v1.Graph()
    with graph.as_default():
        x = rt.compat.v1.placeholder(name="x", shape=[], dtype=rt.string)
        y = rt.compat.v1.placeholder(name="y", shape=[], dtype=rt.string)
        z = rt.strings.join([x, y], name="join", separator=" ")
    with rt.compat.v1.Session(graph=graph) as sess:
        result = sess.run(fetches=z, feed_dict={x: "hello", y: "world"})
    assert result == b"hello world"
    assert z.name == "join:0" and x.name == "x:0"


def test_seed_000_string_join_of_tensorflow_1():
    # "TensorFlow 1.0 静态计算图": tf.string_join, which TensorFlow 2 keeps in compat.v1.
    graph = rt.Graph()
    with graph.as_default():
        x = rt.placeholder(name="x", shape=[], dtype=rt.string)
        y = rt.placeholder(name="y", shape=[], dtype=rt.string)
        z = rt.compat.v1.string_join([x, y], name="join", separator=" ")
    with rt.Session(graph=graph) as sess:
        assert sess.run(fetches=z, feed_dict={x: "hello", y: "world"}) == b"hello world"


def test_seed_003_feeds_eager_tensors():
    # Seed 002/003: feed_dict={a: tf.constant("hello"), ...}
    g = rt.compat.v1.Graph()
    with g.as_default():
        a = rt.compat.v1.placeholder(shape=[], dtype=rt.string)
        b = rt.compat.v1.placeholder(shape=[], dtype=rt.string)
        c = rt.strings.join([a, b])
    with rt.compat.v1.Session(graph=g) as sess:
        assert sess.run(c, feed_dict={a: rt.constant("hello"), b: rt.constant("world")}) == (
            b"helloworld"
        )


def test_seed_001_experimental_run_functions_eagerly_is_the_same_switch():
    traced = []

    @ag.function
    def f(x):
        traced.append(1)
        return x + 1

    try:
        ag.experimental_run_functions_eagerly(True)
        assert ag.functions_run_eagerly()
        f(rt.constant(1))
        f(rt.constant(1))
        assert len(traced) == 2 and f.tracing_count == 0  # called directly, twice
    finally:
        ag.experimental_run_functions_eagerly(False)
    assert not ag.functions_run_eagerly()
    f(rt.constant(1))
    f(rt.constant(1))
    assert f.tracing_count == 1


class DemoModule(rt.Module):
    def __init__(self, init_value=rt.constant(0.0), name=None):  # noqa: B008 (as in the seed)
        super().__init__(name=name)
        with self.name_scope:
            self.x = rt.Variable(init_value, dtype=rt.float32, trainable=True)

    @ag.function(input_signature=[rt.TensorSpec(shape=[], dtype=rt.float32)])
    def addprint(self, a):
        with self.name_scope:
            self.x.assign_add(a)
            rt.print(self.x)
            return self.x


@pytest.fixture
def demo2(tmp_path):
    demo = DemoModule(init_value=rt.constant(1.0))
    demo.addprint(rt.constant(5.0))
    rt.saved_model.save(demo, str(tmp_path), signatures={"serving_default": demo.addprint})
    return rt.saved_model.load(str(tmp_path))


def test_seed_003_a_signature_takes_keywords_and_returns_a_dict(demo2, capsys):
    result = demo2.signatures["serving_default"](a=rt.constant(10.0))
    assert list(result) == ["output_0"]
    assert result["output_0"].numpy() == 16.0
    assert demo2.addprint(rt.constant(10.0)).numpy() == 26.0  # the method: what Python returned
    assert capsys.readouterr().out.split() == ["16", "26"]  # the prints of the two calls


def test_a_signature_of_one_input_takes_it_by_position_too(demo2, capsys):
    # As TensorFlow 2.21 (load_test.py's test_signature_loading: imported_function(two)); a
    # signature of several inputs takes them by name only (tests/runtime/saving).
    result = demo2.signatures["serving_default"](rt.constant(1.0))
    assert result["output_0"].numpy() == 7.0
    assert capsys.readouterr().out.split() == ["7"]
    with pytest.raises(TypeError, match="missing argument 'a'"):
        demo2.signatures["serving_default"]()


def test_signature_outputs_are_named_by_the_returned_dict_or_by_position(tmp_path):
    spec = rt.TensorSpec([], rt.float32)

    @ag.function(input_signature=[spec])
    def as_dict(x):
        return {"double": x * 2.0, "half": x / 2.0}

    @ag.function(input_signature=[spec, spec])
    def as_tuple(x, y):
        return x + y, x - y

    rt.saved_model.save(rt.Module(), str(tmp_path), signatures={"d": as_dict, "t": as_tuple})
    loaded = rt.saved_model.load(str(tmp_path))
    d = loaded.signatures["d"](x=rt.constant(4.0))
    assert {k: v.numpy() for k, v in d.items()} == {"double": 8.0, "half": 2.0}
    t = loaded.signatures["t"](x=rt.constant(4.0), y=rt.constant(1.0))
    assert {k: v.numpy() for k, v in t.items()} == {"output_0": 5.0, "output_1": 3.0}
    shown = rt.saved_model.show(str(tmp_path))
    assert "double: float32 shape ()" in shown and "output_1: float32 shape ()" in shown


class _Adder(rt.Module):
    @ag.function(input_signature=[rt.TensorSpec([], rt.float32, name="x")])
    def add(self, x):
        return x + x


class _TwoServing(_Adder):
    @ag.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def sub(self, x):
        return x - 1.0


def test_without_signatures_the_one_function_with_an_input_signature_serves(tmp_path):
    # TensorFlow's saved_model.save example: the Adder is "servable with an input named x".
    rt.saved_model.save(_Adder(), str(tmp_path))
    loaded = rt.saved_model.load(str(tmp_path))
    assert list(loaded.signatures) == ["serving_default"]
    assert loaded.signatures["serving_default"](x=rt.constant(1.5))["output_0"].numpy() == 3.0
    assert loaded.add(rt.constant(2.0)).numpy() == 4.0


def test_without_signatures_two_candidates_make_no_default(tmp_path):
    rt.saved_model.save(_TwoServing(), str(tmp_path))
    loaded = rt.saved_model.load(str(tmp_path))
    assert dict(loaded.signatures) == {}
    assert loaded.sub(rt.constant(2.0)).numpy() == 1.0


def test_a_signature_describes_its_inputs_and_outputs_as_tensorflow_does(tmp_path):
    @ag.function(input_signature=[rt.TensorSpec([None], rt.float32), rt.TensorSpec([], rt.int32)])
    def scaled(x, k):
        return {"scaled": x * rt.cast(k, rt.float32), "k": k}

    @ag.function(input_signature=[rt.TensorSpec([2], rt.float32)])
    def pair(x):
        return x + 1.0, rt.reduce_sum(x)

    rt.saved_model.save(rt.Module(), str(tmp_path), signatures={"s": scaled, "p": pair})
    loaded = rt.saved_model.load(str(tmp_path))
    s, p = loaded.signatures["s"], loaded.signatures["p"]
    assert s.structured_input_signature == (
        (),
        {"x": rt.TensorSpec([None], rt.float32, "x"), "k": rt.TensorSpec([], rt.int32, "k")},
    )
    assert s.structured_outputs == {
        "k": rt.TensorSpec([], rt.int32, "k"),
        "scaled": rt.TensorSpec([None], rt.float32, "scaled"),
    }
    assert p.structured_outputs == {
        "output_0": rt.TensorSpec([2], rt.float32, "output_0"),
        "output_1": rt.TensorSpec([], rt.float32, "output_1"),
    }
    result = s(x=rt.constant([1.0, 2.0]), k=rt.constant(3))
    assert set(result) == set(s.structured_outputs)
    for name, spec in s.structured_outputs.items():
        assert spec.is_compatible_with(result[name])


def test_a_tensor_spec_name_names_the_signature_input_as_in_tensorflow(tmp_path):
    signature = [rt.TensorSpec([], rt.float32), rt.TensorSpec([], rt.float32, name="scale")]

    @ag.function(input_signature=signature)
    def times(x, k):
        return x * k

    concrete = times.get_concrete_function()
    assert [t.name for t in concrete.inputs] == ["x:0", "scale:0"]
    assert concrete.structured_input_signature == (tuple(signature), {})
    assert concrete(2.0, 3.0).numpy() == 6.0  # called as the Python function is
    rt.saved_model.save(rt.Module(), str(tmp_path), signatures={"serving_default": times})
    serve = rt.saved_model.load(str(tmp_path)).signatures["serving_default"]
    assert sorted(serve.structured_input_signature[1]) == ["scale", "x"]
    assert serve(x=rt.constant(2.0), scale=rt.constant(4.0))["output_0"].numpy() == 8.0
