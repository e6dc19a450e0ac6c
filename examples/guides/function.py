"""TensorFlow's guide "Better performance with tf.function" (tensorflow.org/guide/function),
its code with this project's names: ``tf.function`` is ``ag.function``, ``tf.X`` is ``rt.X``,
``tf.autograph.to_code`` is ``ag.to_code``, ``tf.keras`` is ``rt.keras``. Each ``== title ==``
is a part of the guide; a cell's last expression, which the notebook shows, is printed with
``show``. ``tests/test_guides.py`` compares each part with what TensorFlow prints.

Cells left out:
- "Usage": the timing of a ``Conv2D`` layer against its ``tf.function`` (Keras' ``Conv2D``
  is not part of this round).
- "Use the tracing protocol": ``Fruit`` and ``FruitTraceType`` subclass
  ``tf.types.experimental.TraceType``, which the project does not have.
- "Looping over Python data": the two ``tf.data.Dataset.from_generator`` measurements
  (``tf.data`` is not part of this round; the two Python-list ones are kept).
- "Using Python iterators and generators": ``good_consume_next`` over a ``tf.data``
  iterator (likewise).
- "AutoGraph transformations": ``print(tf.autograph.to_code(f.python_function))``: the code
  TensorFlow generates (``tf__f``, ``ag__.FunctionScope``...) is its own; ours differs by
  design (docs/autograph.md), so there is no TensorFlow text to compare it with.

    python examples/guides/function.py [SECTION ...]
"""

import contextlib
import traceback

from sections import main, section, show

import autograph as ag
import runtime as rt

SECTIONS = []
rt.random.set_seed(0)  # ours: the random numbers the loops below start from are the same each run


# Some helper code to demonstrate the kinds of errors you might encounter.
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


@section(SECTIONS, "Usage")
def usage():
    global add

    @ag.function  # The decorator converts `add` into a `PolymorphicFunction`.
    def add(a, b):
        return a + b

    show(add(rt.ones([2, 2]), rt.ones([2, 2])))  #  [[2., 2.], [2., 2.]]

    v = rt.Variable(1.0)
    with rt.GradientTape() as tape:
        result = add(v, 1.0)
    show(tape.gradient(result, v))

    @ag.function
    def dense_layer(x, w, b):
        return add(rt.matmul(x, w), b)

    show(dense_layer(rt.ones([3, 2]), rt.ones([2, 2]), rt.ones([2])))


@section(SECTIONS, "What is tracing")
def what_is_tracing():
    global double

    @ag.function
    def double(a):
        print("Tracing with", a)
        return a + a

    print(double(rt.constant(1)))
    print()
    print(double(rt.constant(1.1)))
    print()
    print(double(rt.constant("a")))
    print()

    # This doesn't print 'Tracing with ...'
    print(double(rt.constant("b")))


@section(SECTIONS, "pretty_printed_concrete_signatures")
def pretty_printed_concrete_signatures():
    print(double.pretty_printed_concrete_signatures())


@section(SECTIONS, "Pass a fixed input_signature")
def fixed_input_signature():
    @ag.function(input_signature=(rt.TensorSpec(shape=[None], dtype=rt.int32),))
    def next_collatz(x):
        print("Tracing with", x)
        return rt.where(x % 2 == 0, x // 2, 3 * x + 1)

    print(next_collatz(rt.constant([1, 2])))
    # You specified a 1-D tensor in the input signature, so this should fail.
    with assert_raises(TypeError):
        next_collatz(rt.constant([[1, 2], [3, 4]]))

    # You specified an int32 dtype in the input signature, so this should fail.
    with assert_raises(TypeError):
        next_collatz(rt.constant([1.0, 2.0]))


@section(SECTIONS, "Use unknown dimensions for flexibility")
def unknown_dimensions():
    @ag.function(input_signature=(rt.TensorSpec(shape=[None], dtype=rt.int32),))
    def g(x):
        print("Tracing with", x)
        return x

    # No retrace!
    print(g(rt.constant([1, 2, 3])))
    print(g(rt.constant([1, 2, 3, 4, 5])))


@section(SECTIONS, "Use reduce_retracing for automatic flexibility")
def reduce_retracing():
    @ag.function(reduce_retracing=True)
    def g(x):
        print("Tracing with", x)
        return x

    # Traces once.
    print(g(rt.constant([1, 2, 3])))

    # Traces again, but more generalized this time.
    print(g(rt.constant([1, 2, 3, 4, 5])))

    # No more tracing!
    print(g(rt.constant([1, 2, 3, 4, 5, 6, 7])))
    print(g(rt.constant([1, 2, 3, 4, 5, 6, 7, 8, 9])))


@section(SECTIONS, "Pass tensors instead of python literals")
def tensors_instead_of_literals():
    def train_one_step():
        pass

    @ag.function
    def train(num_steps):
        print("Tracing with num_steps = ", num_steps)
        rt.print("Executing with num_steps = ", num_steps)
        for _ in rt.range(num_steps):
            train_one_step()

    print("Retracing occurs for different Python arguments.")
    train(num_steps=10)
    train(num_steps=20)

    print()
    print("Traces are reused for Tensor arguments.")
    train(num_steps=rt.constant(10))
    train(num_steps=rt.constant(20))

    def f():
        print("Tracing!")
        rt.print("Executing")

    ag.function(f)()
    ag.function(f)()


@section(SECTIONS, "Obtaining concrete functions")
def obtaining_concrete_functions():
    global double_strings
    print("Obtaining concrete trace")
    double_strings = double.get_concrete_function(rt.constant("a"))
    print("Executing traced function")
    print(double_strings(rt.constant("a")))
    print(double_strings(a=rt.constant("b")))

    # You can also call get_concrete_function on an InputSpec
    double_strings_from_inputspec = double.get_concrete_function(
        rt.TensorSpec(shape=[], dtype=rt.string)
    )
    print(double_strings_from_inputspec(rt.constant("c")))


@section(SECTIONS, "Printing a ConcreteFunction")
def printing_a_concrete_function():
    print(double_strings)


@section(SECTIONS, "A concrete function's signature")
def function_type():
    print(double_strings.function_type)


@section(SECTIONS, "A concrete trace with incompatible types")
def incompatible_types():
    with assert_raises(rt.errors.InvalidArgumentError):
        double_strings(rt.constant(1))


@section(SECTIONS, "Python arguments in a concrete function")
def python_arguments():
    @ag.function
    def pow(a, b):
        return a**b

    square = pow.get_concrete_function(a=rt.TensorSpec(None, rt.float32), b=2)
    print(square)

    assert square(rt.constant(10.0)) == 100

    with assert_raises(TypeError):
        square(rt.constant(10.0), b=3)


@section(SECTIONS, "Obtaining graphs")
def obtaining_graphs():
    graph = double_strings.graph
    for node in graph.as_graph_def().node:
        print(f"{node.input} -> {node.name}")

    atomic_fn = double_strings.inference_fn
    show(atomic_fn(rt.constant("a")))


@section(SECTIONS, "AutoGraph transformations")
def autograph_transformations():
    global f

    # A simple loop

    @ag.function
    def f(x):
        while rt.reduce_sum(x) > 1:
            rt.print(x)
            x = rt.tanh(x)
        return x

    show(f(rt.random.uniform([5])))


@section(SECTIONS, "Conditionals")
def conditionals():
    @ag.function
    def fizzbuzz(n):
        for i in rt.range(1, n + 1):
            print("Tracing for loop")
            if i % 15 == 0:
                print("Tracing fizzbuzz branch")
                rt.print("fizzbuzz")
            elif i % 3 == 0:
                print("Tracing fizz branch")
                rt.print("fizz")
            elif i % 5 == 0:
                print("Tracing buzz branch")
                rt.print("buzz")
            else:
                print("Tracing default branch")
                rt.print(i)

    fizzbuzz(rt.constant(5))
    fizzbuzz(rt.constant(20))


@section(SECTIONS, "Looping over Python data")
def looping_over_python_data():
    def measure_graph_size(f, *args):
        g = f.get_concrete_function(*args).graph
        print(
            "{}({}) contains {} nodes in its graph".format(
                f.__name__, ", ".join(map(str, args)), len(g.as_graph_def().node)
            )
        )

    @ag.function
    def train(dataset):
        loss = rt.constant(0)
        for x, y in dataset:
            loss += rt.abs(y - x)  # Some dummy computation.
        return loss

    small_data = [(1, 1)] * 3
    big_data = [(1, 1)] * 10
    measure_graph_size(train, small_data)
    measure_graph_size(train, big_data)


@section(SECTIONS, "Accumulating values in a loop")
def accumulating_values():
    batch_size = 2
    seq_len = 3
    feature_size = 4

    def rnn_step(inp, state):
        return inp + state

    @ag.function
    def dynamic_rnn(rnn_step, input_data, initial_state):
        # [batch, time, features] -> [time, batch, features]
        input_data = rt.transpose(input_data, [1, 0, 2])
        max_seq_len = input_data.shape[0]

        states = rt.TensorArray(rt.float32, size=max_seq_len)
        state = initial_state
        for i in rt.range(max_seq_len):
            state = rnn_step(input_data[i], state)
            states = states.write(i, state)
        return rt.transpose(states.stack(), [1, 0, 2])

    show(
        dynamic_rnn(
            rnn_step,
            rt.random.uniform([batch_size, seq_len, feature_size]),
            rt.zeros([batch_size, feature_size]),
        )
    )


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
