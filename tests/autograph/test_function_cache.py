"""``ag.function``'s cache of traced graphs: thread-safe tracing, look-up cost, what it keeps."""

import copy
import gc
import threading
import warnings
import weakref

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from autograph import trace_cache
from runtime.core.tensor_shape import TensorShape


def run_at_once(target, count):
    """Runs ``target(i)`` in ``count`` threads released together; their exceptions, listed."""
    barrier = threading.Barrier(count)
    errors = []

    def run(i):
        barrier.wait()
        try:
            target(i)
        except Exception as error:  # noqa: BLE001 (collected for the assertion)
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads), "a thread hung"
    return errors


# --- tracing from several threads --------------------------------------------------------------


def test_get_concrete_function_from_many_threads_traces_once():
    @ag.function
    def double(x):
        return x * 2

    spec = rt.TensorSpec([None], rt.float32)
    found = [None] * 100

    def get(i):
        found[i] = double.get_concrete_function(spec)

    assert run_at_once(get, 100) == []
    assert len({id(concrete) for concrete in found}) == 1  # TensorFlow: one
    assert double.tracing_count == 1


class Dense:
    created = 0

    def __init__(self):
        self.w = None

    @ag.function
    def __call__(self, x):
        if self.w is None:
            Dense.created += 1
            self.w = rt.Variable(np.full((2,), 3.0, np.float32))
        return x * self.w


def test_first_calls_of_a_method_from_many_threads_create_each_variable_once():
    Dense.created = 0
    layers = [Dense() for _ in range(16)]
    results = [None] * 160

    def call(i):
        results[i] = layers[i % 16](rt.constant([1.0, 2.0])).numpy()

    assert run_at_once(call, 160) == []
    assert Dense.created == 16
    for result in results:
        np.testing.assert_allclose(result, [3.0, 6.0])
    # Each instance: the first trace (which creates the variable) and the one that runs.
    assert [layer.__call__.tracing_count for layer in layers] == [2] * 16


def test_a_trace_in_another_thread_does_not_judge_this_threads_variables():
    # Thread A is in a later trace of its function (which may not create variables) while
    # thread B creates a variable on the first trace of another: B's variable is allowed.
    inside, created = threading.Event(), threading.Event()
    gate = {"closed": False}

    @ag.function
    def waits(x):
        if gate["closed"]:
            inside.set()
            assert created.wait(timeout=30)
        return x + 1

    waits(rt.constant(1.0))  # the first trace
    gate["closed"] = True
    box = {}

    @ag.function
    def makes(x):
        if "v" not in box:
            box["v"] = rt.Variable(2.0)
        return x * box["v"]

    def later_trace_of_waits(i):
        if i == 0:
            waits(rt.constant([1.0]))  # a new shape: a later trace
        else:
            assert inside.wait(timeout=30)
            try:
                makes(rt.constant(4.0))
            finally:
                created.set()

    assert run_at_once(later_trace_of_waits, 2) == []
    np.testing.assert_allclose(makes(rt.constant(4.0)).numpy(), 8.0)


# --- look-up cost -------------------------------------------------------------------------------


@pytest.fixture
def shape_comparisons(monkeypatch):
    """Counts the shape comparisons that matching a call against traced graphs makes."""
    count = [0]
    compare = TensorShape.is_subtype_of

    def counted(self, other):
        count[0] += 1
        return compare(self, other)

    monkeypatch.setattr(TensorShape, "is_subtype_of", counted)
    return count


def test_many_shapes_are_found_by_hash_not_by_comparing_every_earlier_trace(shape_comparisons):
    @ag.function
    def double(x):
        return x * 2

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ag.RetracingWarning)
        for n in range(1, 401):
            x = np.arange(n, dtype=np.float32)
            np.testing.assert_allclose(double(rt.constant(x)).numpy(), x * 2)
    assert double.tracing_count == 400
    assert shape_comparisons[0] == 0  # each new shape: one hash look-up, no earlier trace tried


def test_a_general_trace_is_tried_once_per_new_shape(shape_comparisons):
    @ag.function
    def double(x):
        return x * 2

    double.get_concrete_function(rt.TensorSpec([None, 3], rt.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ag.RetracingWarning)
        for n in range(1, 201):  # [n, 4] does not fit [None, 3]: each traces
            x = np.ones((n, 4), np.float32)
            np.testing.assert_allclose(double(rt.constant(x)).numpy(), x * 2)
    assert double.tracing_count == 201
    assert shape_comparisons[0] == 200  # the one general graph, once per miss
    x = np.ones((7, 3), np.float32)
    np.testing.assert_allclose(double(rt.constant(x)).numpy(), x * 2)
    assert double.tracing_count == 201  # the general graph serves it


# --- what the cache keeps -----------------------------------------------------------------------


class Config:
    def __init__(self, k):
        self.k = k
        self.payload = np.zeros(1000)


def test_objects_passed_as_arguments_are_not_kept_alive():
    @ag.function
    def scale(x, config):
        return x * config.k

    config = Config(3.0)
    np.testing.assert_allclose(scale(rt.constant(2.0), config).numpy(), 6.0)
    concrete = scale.get_concrete_function(rt.constant(2.0), config)
    freed = weakref.ref(config)
    del config
    gc.collect()
    assert freed() is None
    assert concrete.structured_input_signature[0][1] is None  # the object is gone


def test_a_freed_objects_graph_never_serves_a_new_object():
    # A new object may take a freed one's id: the key of the freed one must not match it.
    @ag.function
    def scale(x, config):
        return x * config.k

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ag.RetracingWarning)
        for k in range(60):
            np.testing.assert_allclose(scale(rt.constant(1.0), Config(float(k))).numpy(), k)
    assert scale.tracing_count == 60


def test_a_concrete_function_refuses_a_new_object_after_its_own_is_freed():
    @ag.function
    def scale(x, config):
        return x * config.k

    concrete = scale.get_concrete_function(rt.constant(1.0), Config(2.0))
    gc.collect()
    with pytest.raises(TypeError, match="traced as"):
        concrete(rt.constant(1.0), Config(2.0))


def test_objects_that_cannot_be_held_weakly_are_kept_and_still_count_by_identity():
    @ag.function
    def pick(x, token):
        return x + 1

    tokens = [object(), object()]
    for token in tokens * 2:
        np.testing.assert_allclose(pick(rt.constant(1.0), token).numpy(), 2.0)
    assert pick.tracing_count == 2


def test_the_cache_is_bounded_and_forgets_the_least_recently_used(monkeypatch):
    monkeypatch.setattr(trace_cache, "MAX_SIGNATURES", 8)

    @ag.function
    def shift(x, n):
        return x + n

    x = rt.constant(1.0)
    held = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ag.RetracingWarning)
        for n in range(40):
            held.append(weakref.ref(shift.get_concrete_function(x, n)))
            np.testing.assert_allclose(shift(x, n).numpy(), 1.0 + n)
            np.testing.assert_allclose(shift(x, 0).numpy(), 1.0)  # used all along: kept
    gc.collect()
    assert sum(ref() is not None for ref in held) <= 8
    assert held[0]() is not None
    assert shift.tracing_count == 40
    np.testing.assert_allclose(shift(x, 1).numpy(), 2.0)  # forgotten: traced again
    assert shift.tracing_count == 41


def test_the_fast_path_of_eager_tensor_calls_is_bounded_too(monkeypatch):
    monkeypatch.setattr(trace_cache, "MAX_SIGNATURES", 8)

    @ag.function
    def double(x):
        return x * 2

    held = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ag.RetracingWarning)
        for n in range(1, 41):
            x = rt.constant(np.ones(n, np.float32))
            held.append(weakref.ref(double.get_concrete_function(x)))
            for _ in range(3):  # the second call makes its entry function
                np.testing.assert_allclose(double(x).numpy(), np.full(n, 2.0))
    gc.collect()
    assert sum(ref() is not None for ref in held) <= 8


def test_a_deep_copy_traces_its_own_graphs_for_the_copied_object():
    # The cache holds locks, which cannot be copied: a deep copy starts with a cache of its own.
    class Scale:
        def __init__(self, k):
            self.k = k
            self.apply = ag.function(self._apply)

        def _apply(self, x):
            return x * self.k

    original = Scale(2.0)
    np.testing.assert_allclose(original.apply(rt.constant(3.0)).numpy(), 6.0)
    twin = copy.deepcopy(original)
    twin.k = 5.0
    np.testing.assert_allclose(twin.apply(rt.constant(3.0)).numpy(), 15.0)
    np.testing.assert_allclose(original.apply(rt.constant(3.0)).numpy(), 6.0)


def test_a_call_without_variables_walks_its_arguments_once(monkeypatch):
    # The general path (a Python argument) costs what it did before variables were inputs:
    # one walk of the arguments for the graph's inputs, none for variables' aliasing, and no
    # switch of how variables count (that is for jit_compile only).
    from autograph import signatures

    walks, switches = [], []
    real_leaves, real_captured = signatures.tensor_leaves, signatures.variables_captured
    monkeypatch.setattr(signatures, "tensor_leaves", lambda a: walks.append(1) or real_leaves(a))
    monkeypatch.setattr(
        signatures, "variables_captured", lambda *a: switches.append(1) or real_captured(*a)
    )
    scale = ag.function(lambda x, k: x * k)
    scale(rt.constant([1.0, 2.0]), 2.0)  # traced
    walks.clear()
    np.testing.assert_allclose(scale(rt.constant([1.0, 2.0]), 2.0).numpy(), [2.0, 4.0])
    assert (len(walks), len(switches)) == (1, 0)
