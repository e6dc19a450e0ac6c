"""TensorFlow's guide "Better performance with tf.function" (tensorflow.org/guide/function),
its code with this project's names: ``tf.function`` is ``ag.function``, ``tf.X`` is ``rt.X``,
``tf.autograph.to_code`` is ``ag.to_code``, ``tf.keras`` is ``rt.keras``. Each ``== title ==``
is a part of the guide; a cell's last expression, which the notebook shows, is printed with
``show``. ``tests/test_guides.py`` compares each part with what TensorFlow prints. The
guide's second half, "Limitations" and "Known Issues", is function_limitations.py.

Cells left out:
- "Usage": the timing of a ``Conv2D`` layer against its ``tf.function`` (Keras' ``Conv2D``
  is not part of this round).
- "Use the tracing protocol": ``Fruit`` and ``FruitTraceType`` subclass
  ``tf.types.experimental.TraceType``, which the project does not have.
- "Looping over Python data": the two ``tf.data.Dataset.from_generator`` measurements
  (``tf.data`` is not part of this round; the two Python-list ones are kept).
- "AutoGraph transformations": ``print(tf.autograph.to_code(f.python_function))``: the code
  TensorFlow generates (``tf__f``, ``ag__.FunctionScope``...) is its own; ours differs by
  design (docs/autograph.md), so there is no TensorFlow text to compare it with.

    python examples/guides/function.py [SECTION ...]
"""

from sections import assert_raises, main, section, show

import autograph as ag
import runtime as rt

SECTIONS = []
rt.random.set_seed(0)  # ours: the random numbers the loops below start from are the same each run


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


if __name__ == "__main__":
    main(SECTIONS)
