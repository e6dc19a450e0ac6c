"""tensorflow.org/guide/function, "Better performance with tf.function" (TensorFlow 2.21):
examples/guides/function.py (up to "Accumulating values in a loop") and
function_limitations.py ("Limitations", "Known Issues")."""

from tests.guides import caught

EXPECTED = {
    "Usage": """\
<rt.Tensor: shape=(2, 2), dtype=float32, numpy=
array([[2., 2.],
       [2., 2.]], dtype=float32)>
<rt.Tensor: shape=(), dtype=float32, numpy=1.0>
<rt.Tensor: shape=(3, 2), dtype=float32, numpy=
array([[3., 3.],
       [3., 3.],
       [3., 3.]], dtype=float32)>
""",
    "What is tracing": """\
Tracing with Tensor("a:0", shape=(), dtype=int32)
rt.Tensor(2, shape=(), dtype=int32)

Tracing with Tensor("a:0", shape=(), dtype=float32)
rt.Tensor(2.2, shape=(), dtype=float32)

Tracing with Tensor("a:0", shape=(), dtype=string)
rt.Tensor(b'aa', shape=(), dtype=string)

rt.Tensor(b'bb', shape=(), dtype=string)
""",
    # TensorFlow 2.21's layout (each concrete function's pretty_printed_signature), in the
    # order they were traced.
    "pretty_printed_concrete_signatures": """\
Input Parameters:
  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=rt.int32, name=None)
Output Type:
  TensorSpec(shape=(), dtype=rt.int32, name=None)
Captures:
  None

Input Parameters:
  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=rt.float32, name=None)
Output Type:
  TensorSpec(shape=(), dtype=rt.float32, name=None)
Captures:
  None

Input Parameters:
  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=rt.string, name=None)
Output Type:
  TensorSpec(shape=(), dtype=rt.string, name=None)
Captures:
  None
""",
    # TensorFlow 2.21 refuses both calls with a TypeError (the shape too).
    "Pass a fixed input_signature": """\
Tracing with Tensor("x:0", shape=(None,), dtype=int32)
rt.Tensor([4 1], shape=(2,), dtype=int32)
"""
    + caught("TypeError")
    + caught("TypeError"),
    "Use unknown dimensions for flexibility": """\
Tracing with Tensor("x:0", shape=(None,), dtype=int32)
rt.Tensor([1 2 3], shape=(3,), dtype=int32)
rt.Tensor([1 2 3 4 5], shape=(5,), dtype=int32)
""",
    "Use reduce_retracing for automatic flexibility": """\
Tracing with Tensor("x:0", shape=(3,), dtype=int32)
rt.Tensor([1 2 3], shape=(3,), dtype=int32)
Tracing with Tensor("x:0", shape=(None,), dtype=int32)
rt.Tensor([1 2 3 4 5], shape=(5,), dtype=int32)
rt.Tensor([1 2 3 4 5 6 7], shape=(7,), dtype=int32)
rt.Tensor([1 2 3 4 5 6 7 8 9], shape=(9,), dtype=int32)
""",
    "Pass tensors instead of python literals": """\
Retracing occurs for different Python arguments.
Tracing with num_steps =  10
Executing with num_steps =  10
Tracing with num_steps =  20
Executing with num_steps =  20

Traces are reused for Tensor arguments.
Tracing with num_steps =  Tensor("num_steps:0", shape=(), dtype=int32)
Executing with num_steps =  10
Executing with num_steps =  20
Tracing!
Executing
Tracing!
Executing
""",
    "Obtaining concrete functions": """\
Obtaining concrete trace
Executing traced function
rt.Tensor(b'aa', shape=(), dtype=string)
rt.Tensor(b'bb', shape=(), dtype=string)
rt.Tensor(b'cc', shape=(), dtype=string)
""",
    # The project prints a ConcreteFunction in the layout docs/function.md documents (the
    # seeds' TensorFlow's); TensorFlow 2.21 prints "ConcreteFunction " and the
    # pretty_printed_signature() layout ("Input Parameters: ...") instead.
    "Printing a ConcreteFunction": """\
ConcreteFunction double(a)
  Args:
    a: string Tensor, shape=()
  Returns:
    string Tensor, shape=()
""",
    "A concrete function's signature": """\
(a: TensorSpec(shape=(), dtype=rt.string, name=None)) -> TensorSpec(shape=(), dtype=rt.string, name=None)
""",  # noqa: E501 (one printed line)
    "A concrete trace with incompatible types": caught("runtime.errors.InvalidArgumentError"),
    # print(square) in docs/function.md's layout, as TensorFlow printed it in that layout: the
    # Python argument is shown with its value in the header, not among the Args.
    "Python arguments in a concrete function": """\
ConcreteFunction pow(a, b=2)
  Args:
    a: float32 Tensor, shape=<unknown>
  Returns:
    float32 Tensor, shape=<unknown>
"""
    + caught("TypeError"),
    "Obtaining graphs": """\
[] -> a
['a', 'a'] -> add
['add'] -> Identity
<rt.Tensor: shape=(), dtype=string, numpy=b'aa'>
""",
    # Random: rt.print's rows (as many as the loop runs), then the result.
    "AutoGraph transformations": """\
[0.281349301 0.302678704 0.061591506 0.982579 0.350352168]
<rt.Tensor: shape=(5,), dtype=float32, numpy=
array([0.20399237, 0.21166414, 0.06030817, 0.2814329 , 0.22605935],
      dtype=float32)>
""",
    "Conditionals": """\
Tracing for loop
Tracing fizzbuzz branch
Tracing fizz branch
Tracing buzz branch
Tracing default branch
1
2
fizz
4
buzz
1
2
fizz
4
buzz
fizz
7
8
fizz
buzz
11
fizz
13
14
fizzbuzz
16
17
fizz
19
buzz
""",
    "Looping over Python data": """\
train([(1, 1), (1, 1), (1, 1)]) contains 11 nodes in its graph
train([(1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1)]) \
contains 32 nodes in its graph
""",
    "Accumulating values in a loop": """\
<rt.Tensor: shape=(2, 3, 4), dtype=float32, numpy=
array([[[0.12, 0.34, 0.56, 0.78],
        [0.12, 0.34, 0.56, 0.78],
        [0.12, 0.34, 0.56, 0.78]],

       [[0.12, 0.34, 0.56, 0.78],
        [0.12, 0.34, 0.56, 0.78],
        [0.12, 0.34, 0.56, 0.78]]], dtype=float32)>
""",
}

XFAIL = {
    # TensorFlow's graph makes a Const each time a Python number becomes a tensor (the 0 of
    # each rt.abs(y - x): 3 and 10 of them); a FuncGraph here makes one Const per distinct
    # Python scalar and reuses it (runtime.core.graph.scalar_constant), so its GraphDef has
    # 9 and 23 nodes where TensorFlow's has 11 and 32. The Identity node of the output is
    # there as in TensorFlow's.
    "Looping over Python data": "one Const per distinct Python scalar, not one per use: "
    "9 and 23 nodes where TensorFlow's graph has 11 and 32",
}

RANDOM = {"AutoGraph transformations", "Accumulating values in a loop"}

LIMITATIONS = {
    "Executing Python side effects": """\
Traced with 1
Executed with 1
Executed with 1
Traced with 2
Executed with 2
""",
    "py_function": """\
Tracing.
Executing eagerly.
3.0
Executing eagerly.
3.0
""",
    "Changing Python global and free variables": """\
Python side effect
1
2
3
""",
    "init_scope": """\
1
1
1
""",
    "Using Python iterators and generators": """\
Value: 1
Value: 1
Value: 1
""",
    "All outputs of a tf.function must be return values": """\
3
'SymbolicTensor' object has no attribute 'numpy'
2
'SymbolicTensor' object has no attribute 'numpy'
"""
    + caught("TypeError"),
    "Recursive tf.functions are not supported": caught("Exception")
    + """\
tracing
tracing
tracing
tracing
tracing
<rt.Tensor: shape=(), dtype=int32, numpy=1>
""",
    "Depending on Python global and free variables": """\
Buggy: rt.Tensor(2, shape=(), dtype=int32)
Correct: rt.Tensor(2, shape=(), dtype=int32)
Updating the value of `foo` to 100!
Buggy: rt.Tensor(2, shape=(), dtype=int32)
Correct: rt.Tensor(101, shape=(), dtype=int32)
Variable: rt.Tensor(2, shape=(), dtype=int32)
Updating the value of `foo` to 100!
Variable: rt.Tensor(101, shape=(), dtype=int32)
""",
    "Depending on Python objects": """\
rt.Tensor(20.0, shape=(), dtype=float32)
Adding bias!
rt.Tensor(20.0, shape=(), dtype=float32)
rt.Tensor(20.0, shape=(), dtype=float32)
Adding bias!
rt.Tensor(25.0, shape=(), dtype=float32)
rt.Tensor(20.0, shape=(), dtype=float32)
Adding bias!
rt.Tensor(25.0, shape=(), dtype=float32)
""",
    "Creating tf.Variables": caught("ValueError")
    + """\
rt.Tensor(1, shape=(), dtype=int32)
rt.Tensor(2, shape=(), dtype=int32)
""",
    "Using with multiple Keras optimizers": "Calling `train_step` with different optimizer...\n"
    + caught("ValueError"),
}

LIMITATIONS_XFAIL = {}
