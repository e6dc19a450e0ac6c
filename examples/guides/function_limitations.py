"""The second half of TensorFlow's guide "Better performance with tf.function"
(tensorflow.org/guide/function): "Limitations" and "Known Issues", its code with this
project's names as in function.py (the first half). ``tests/test_guides.py`` compares each
part with what TensorFlow prints.

Cells left out:
- "Using Python iterators and generators": ``good_consume_next`` over a ``tf.data`` iterator
  (``tf.data`` is not part of this round).

    python examples/guides/function_limitations.py [SECTION ...]
"""

from sections import assert_raises, main, section, show

import autograph as ag
import runtime as rt

SECTIONS = []


@section(SECTIONS, "Executing Python side effects")
def python_side_effects():
    @ag.function
    def f(x):
        print("Traced with", x)
        rt.print("Executed with", x)

    f(1)
    f(1)
    f(2)


@section(SECTIONS, "py_function")
def py_function():
    @rt.py_function(Tout=rt.float32)
    def py_plus(x, y):
        print("Executing eagerly.")
        return x + y

    @ag.function
    def tf_wrapper(x, y):
        print("Tracing.")
        return py_plus(x, y)

    # The notebook shows each value (3.0): printed, as numpy 1 and 2 agree on its str.
    print(tf_wrapper(rt.constant(1.0), rt.constant(2.0)).numpy())
    print(tf_wrapper(rt.constant(1.0), rt.constant(2.0)).numpy())


@section(SECTIONS, "Changing Python global and free variables")
def changing_globals():
    external_list = []

    @ag.function
    def side_effect(x):
        print("Python side effect")
        external_list.append(x)

    side_effect(1)
    side_effect(1)
    side_effect(1)
    # The list append only happened once!
    assert len(external_list) == 1

    class Model(rt.Module):
        def __init__(self):
            self.v = rt.Variable(0)
            self.counter = 0

        @ag.function
        def __call__(self):
            if self.counter == 0:
                # A python side-effect
                self.counter += 1
                self.v.assign_add(1)

            return self.v

    m = Model()
    for _n in range(3):
        print(m().numpy())  # prints 1, 2, 3


@section(SECTIONS, "init_scope")
def init_scope():
    class Model(rt.Module):
        def __init__(self):
            self.v = rt.Variable(0)
            self.counter = 0

        @ag.function
        def __call__(self):
            if self.counter == 0:
                # Lifts ops out of function-building graphs
                with rt.init_scope():
                    self.counter += 1
                    self.v.assign_add(1)

            return self.v

    m = Model()
    for _n in range(3):
        print(m().numpy())  # prints 1, 1, 1


@section(SECTIONS, "Using Python iterators and generators")
def python_iterators():
    @ag.function
    def buggy_consume_next(iterator):
        rt.print("Value:", next(iterator))

    iterator = iter([1, 2, 3])
    buggy_consume_next(iterator)
    # This reuses the first value from the iterator, rather than consuming the next value.
    buggy_consume_next(iterator)
    buggy_consume_next(iterator)


@section(SECTIONS, "All outputs of a tf.function must be return values")
def outputs_must_be_returned():
    global leaky_function, x
    x = None

    @ag.function
    def leaky_function(a):
        global x
        x = a + 1  # Bad - leaks local tensor
        return a + 2

    correct_a = leaky_function(rt.constant(1))

    print(correct_a.numpy())  # Good - value obtained from function's returns
    try:
        x.numpy()  # Bad - tensor leaked from inside the function, cannot be used here
    except AttributeError as expected:
        print(expected)

    @ag.function
    def leaky_function(a):
        global x
        x = a + 1  # Bad - leaks local tensor
        return x  # Good - uses local tensor

    correct_a = leaky_function(rt.constant(1))

    print(correct_a.numpy())  # Good - value obtained from function's returns
    try:
        x.numpy()  # Bad - tensor leaked from inside the function, cannot be used here
    except AttributeError as expected:
        print(expected)

    @ag.function
    def captures_leaked_tensor(b):
        b += x  # Bad - `x` is leaked from `leaky_function`
        return b

    with assert_raises(TypeError):
        captures_leaked_tensor(rt.constant(2))


@section(SECTIONS, "Recursive tf.functions are not supported")
def recursive_functions():
    global recursive_fn

    @ag.function
    def recursive_fn(n):
        if n > 0:
            return recursive_fn(n - 1)
        else:
            return 1

    with assert_raises(Exception):
        recursive_fn(rt.constant(5))  # Bad - maximum recursion error.

    @ag.function
    def recursive_fn(n):
        if n > 0:
            print("tracing")
            return recursive_fn(n - 1)
        else:
            return 1

    show(recursive_fn(5))  # Warning - multiple tracings


@section(SECTIONS, "Depending on Python global and free variables")
def depending_on_globals():
    global foo

    @ag.function
    def buggy_add():
        return 1 + foo

    @ag.function
    def recommended_add(foo):
        return 1 + foo

    foo = 1
    print("Buggy:", buggy_add())
    print("Correct:", recommended_add(foo))

    print("Updating the value of `foo` to 100!")
    foo = 100
    print("Buggy:", buggy_add())  # Did not change!
    print("Correct:", recommended_add(foo))

    @ag.function
    def variable_add():
        return 1 + foo

    foo = rt.Variable(1)
    print("Variable:", variable_add())

    print("Updating the value of `foo` to 100!")
    foo.assign(100)
    print("Variable:", variable_add())


class SimpleModel(rt.Module):
    def __init__(self):
        # These values are *not* rt.Variables.
        self.bias = 0.0
        self.weight = 2.0


@section(SECTIONS, "Depending on Python objects")
def depending_on_python_objects():
    @ag.function
    def evaluate(model, x):
        return model.weight * x + model.bias

    simple_model = SimpleModel()
    x = rt.constant(10.0)
    print(evaluate(simple_model, x))

    print("Adding bias!")
    simple_model.bias += 5.0
    print(evaluate(simple_model, x))  # Didn't change :(

    def evaluate(model, x):
        return model.weight * x + model.bias

    new_model = SimpleModel()
    evaluate_no_bias = ag.function(evaluate).get_concrete_function(new_model, x)
    # Don't pass in `new_model`. `ag.function` already captured its state during tracing.
    print(evaluate_no_bias(x))

    print("Adding bias!")
    new_model.bias += 5.0
    # Create new `ag.function` and `ConcreteFunction` since you modified `new_model`.
    evaluate_with_bias = ag.function(evaluate).get_concrete_function(new_model, x)
    print(evaluate_with_bias(x))  # Don't pass in `new_model`.

    class BetterModel:
        def __init__(self):
            self.bias = rt.Variable(0.0)
            self.weight = rt.Variable(2.0)

    @ag.function
    def evaluate(model, x):
        return model.weight * x + model.bias

    better_model = BetterModel()
    print(evaluate(better_model, x))

    print("Adding bias!")
    better_model.bias.assign_add(5.0)  # Note: instead of better_model.bias += 5
    print(evaluate(better_model, x))  # This works!


@section(SECTIONS, "Creating tf.Variables")
def creating_variables():
    @ag.function
    def f(x):
        v = rt.Variable(1.0)
        return v

    with assert_raises(ValueError):
        f(1.0)

    class Count(rt.Module):
        def __init__(self):
            self.count = None

        @ag.function
        def __call__(self):
            if self.count is None:
                self.count = rt.Variable(0)
            return self.count.assign_add(1)

    c = Count()
    print(c())
    print(c())


@section(SECTIONS, "Using with multiple Keras optimizers")
def multiple_keras_optimizers():
    opt1 = rt.keras.optimizers.Adam(learning_rate=1e-2)
    opt2 = rt.keras.optimizers.Adam(learning_rate=1e-3)

    @ag.function
    def train_step(w, x, y, optimizer):
        with rt.GradientTape() as tape:
            L = rt.reduce_sum(rt.square(w * x - y))
        gradients = tape.gradient(L, [w])
        optimizer.apply_gradients(zip(gradients, [w]))

    w = rt.Variable(2.0)
    x = rt.constant([-1.0])
    y = rt.constant([2.0])

    train_step(w, x, y, opt1)
    print("Calling `train_step` with different optimizer...")
    with assert_raises(ValueError):
        train_step(w, x, y, opt2)

    class TrainStep(rt.Module):
        def __init__(self, optimizer):
            self.optimizer = optimizer

        @ag.function
        def __call__(self, w, x, y):
            with rt.GradientTape() as tape:
                L = rt.reduce_sum(rt.square(w * x - y))
            gradients = tape.gradient(L, [w])
            self.optimizer.apply_gradients(zip(gradients, [w]))

    opt1 = rt.keras.optimizers.Adam(learning_rate=1e-2)
    opt2 = rt.keras.optimizers.Adam(learning_rate=1e-3)

    train_o1 = TrainStep(opt1)
    train_o2 = TrainStep(opt2)

    train_o1(w, x, y)
    train_o2(w, x, y)

    opt1 = rt.keras.optimizers.Adam(learning_rate=1e-2)
    opt2 = rt.keras.optimizers.Adam(learning_rate=1e-3)

    # Not an ag.function.
    def train_step(w, x, y, optimizer):
        with rt.GradientTape() as tape:
            L = rt.reduce_sum(rt.square(w * x - y))
        gradients = tape.gradient(L, [w])
        optimizer.apply_gradients(zip(gradients, [w]))

    w = rt.Variable(2.0)
    x = rt.constant([-1.0])
    y = rt.constant([2.0])

    # Make a new ag.function and ConcreteFunction for each optimizer.
    train_step_1 = ag.function(train_step)
    train_step_2 = ag.function(train_step)
    for i in range(10):
        if i % 2 == 0:
            train_step_1(w, x, y, opt1)
        else:
            train_step_2(w, x, y, opt2)


if __name__ == "__main__":
    main(SECTIONS)
