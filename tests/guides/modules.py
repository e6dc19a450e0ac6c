"""tensorflow.org/guide/intro_to_modules, "Introduction to modules, layers, and models":
examples/guides/modules.py."""

from tests.guides import Contains


def var_lines(text):
    """``print(var, "\n")`` of each variable: its text, a space, an empty line."""
    return "".join(f"{v} \n\n" for v in text.split("\n\n"))


# The Keras parts are as the rendered page (TensorFlow 2.15, Keras 2) prints them, with this
# project's names: a layer's repr as the seeds map Keras's (``<__main__.FlexibleDense
# 'flexible_dense_1'>`` for ``<__main__.FlexibleDense at 0x...>``), and Keras 3's default
# names of a functional model and its input (``functional``, ``input_layer``: Keras 2's
# ``model``, ``input_1``), whose input's output shape Keras 3 prints as ``(None, 3)``.
EXPECTED = {
    "TensorFlow Modules": """\
<rt.Tensor: shape=(), dtype=float32, numpy=30.0>
trainable variables: (<rt.Variable 'train_me:0' shape=() dtype=float32, numpy=5.0>,)
all variables: (<rt.Variable 'train_me:0' shape=() dtype=float32, numpy=5.0>, \
<rt.Variable 'do_not_train_me:0' shape=() dtype=float32, numpy=5.0>)
""",
    "A two-layer model": """\
Model results: rt.Tensor([[0.       3.415034]], shape=(1, 2), dtype=float32)
Submodules: (<__main__.Dense object at 0x7f7931aea250>, <__main__.Dense object at 0x7f77ed5b8a00>)
"""
    + var_lines("""\
<rt.Variable 'b:0' shape=(3,) dtype=float32, numpy=array([0., 0., 0.], dtype=float32)>

<rt.Variable 'w:0' shape=(3, 3) dtype=float32, numpy=
array([[-2.8161757, -2.6065955,  1.9061812],
       [-0.9430401, -0.4624743, -0.4531979],
       [-1.3428234,  0.7062293,  0.7874674]], dtype=float32)>

<rt.Variable 'b:0' shape=(2,) dtype=float32, numpy=array([0., 0.], dtype=float32)>

<rt.Variable 'w:0' shape=(3, 2) dtype=float32, numpy=
array([[ 1.0474309 , -0.6920227 ],
       [ 1.2405277 ,  0.36411622],
       [-1.6990206 ,  0.762131  ]], dtype=float32)>"""),
    "Waiting to create variables": """\
Model results: rt.Tensor([[0. 0.]], shape=(1, 2), dtype=float32)
""",
    # The checkpoint's variables by the path of attributes from its root.
    "Saving weights": """\
'my_checkpoint'
[('_CHECKPOINTABLE_OBJECT_GRAPH', []),
 ('model/dense_1/b/.ATTRIBUTES/VARIABLE_VALUE', [3]),
 ('model/dense_1/w/.ATTRIBUTES/VARIABLE_VALUE', [3, 3]),
 ('model/dense_2/b/.ATTRIBUTES/VARIABLE_VALUE', [2]),
 ('model/dense_2/w/.ATTRIBUTES/VARIABLE_VALUE', [3, 2])]
""",
    "Restoring weights": """\
<rt.Tensor: shape=(1, 2), dtype=float32, numpy=array([[0., 0.]], dtype=float32)>
""",
    "Saving functions": """\
rt.Tensor([[0.31593648 0.        ]], shape=(1, 2), dtype=float32)
rt.Tensor(
[[[0.31593648 0.        ]
  [0.31593648 0.        ]]], shape=(1, 2, 2), dtype=float32)
""",
    "Tracing the graph for TensorBoard": """\
rt.Tensor([[0. 0.]], shape=(1, 2), dtype=float32)
""",
    # TensorFlow's INFO line ("Assets written to: the_saved_model/assets") goes to stderr.
    "Creating a SavedModel": """\
False
rt.Tensor([[0.31593648 0.        ]], shape=(1, 2), dtype=float32)
rt.Tensor(
[[[0.31593648 0.        ]
  [0.31593648 0.        ]]], shape=(1, 2, 2), dtype=float32)
""",
    "Keras layers": """\
<rt.Tensor: shape=(1, 3), dtype=float32, numpy=array([[1.1688161, 0.       , 0.       ]], \
dtype=float32)>
""",
    "The build step": """\
[]
Model results: rt.Tensor(
[[-2.531786  -5.5550847 -0.4248762]
 [-3.7976792 -8.332626  -0.6373143]], shape=(2, 3), dtype=float32)
[<rt.Variable 'flexible_dense/w:0' shape=(3, 3) dtype=float32, numpy=
 array([[-0.77719826, -1.9281565 ,  0.82326293],
        [ 0.85628736, -0.31845194,  0.10916236],
        [-1.3449821 , -0.5309338 , -1.1448634 ]], dtype=float32)>,
 <rt.Variable 'flexible_dense/b:0' shape=(3,) dtype=float32, \
numpy=array([0., 0., 0.], dtype=float32)>]
""",
    # Keras wraps TensorFlow's message in its own words, which differ between Keras 2 and 3
    # and name a device-specific function node; the part compared is TensorFlow's own.
    "The build step: an input that does not fit": Contains(
        "Failed: ", "Matrix size-incompatible: In[0]: [1,4], In[1]: [3,3] [Op:MatMul]"
    ),
    "Keras models": """\
Model results: rt.Tensor([[ 0.26034355 16.431221  ]], shape=(1, 2), dtype=float32)
[<rt.Variable 'my_sequential_model/flexible_dense_1/w:0' shape=(3, 3) dtype=float32, numpy=
 array([[ 1.4749854 ,  0.16090827,  2.2669017 ],
        [ 1.6850946 ,  1.1545411 ,  0.1707306 ],
        [ 0.8753734 , -0.13549292,  0.08751986]], dtype=float32)>,
 <rt.Variable 'my_sequential_model/flexible_dense_1/b:0' shape=(3,) dtype=float32, \
numpy=array([0., 0., 0.], dtype=float32)>,
 <rt.Variable 'my_sequential_model/flexible_dense_2/w:0' shape=(3, 2) dtype=float32, numpy=
 array([[-0.8022977 ,  1.9773549 ],
        [-0.76657015, -0.8485579 ],
        [ 1.6919082 ,  0.49000967]], dtype=float32)>,
 <rt.Variable 'my_sequential_model/flexible_dense_2/b:0' shape=(2,) dtype=float32, \
numpy=array([0., 0.], dtype=float32)>]
(<__main__.FlexibleDense 'flexible_dense_1'>,
 <__main__.FlexibleDense 'flexible_dense_2'>)
""",
    # summary() in the layout docs/api.md documents (the seeds' table), with the rows
    # TensorFlow lists: the InputLayer, then the two layers named after the three
    # FlexibleDense layers made before them.
    "The functional API": """\
Model: "functional"
_________________________________________________________________
Layer (type)                 Output Shape              Param #   
input_layer (InputLayer)     (None, 3)                 0         
_________________________________________________________________
flexible_dense_3 (FlexibleDe (None, 3)                 12        
_________________________________________________________________
flexible_dense_4 (FlexibleDe (None, 2)                 8         
Total params: 20
Trainable params: 20
Non-trainable params: 0
_________________________________________________________________
<rt.Tensor: shape=(1, 2), dtype=float32, numpy=array([[3.4276495, 2.937252 ]], dtype=float32)>
""",  # noqa: W291 (Keras pads the rows of its table to 65 characters)
    "Saving Keras models": """\
<rt.Tensor: shape=(1, 2), dtype=float32, numpy=array([[ 0.26034355, 16.431221  ]], \
dtype=float32)>
""",
}

XFAIL = {}

# Every part but the first prints random numbers (the modules' initial weights).
RANDOM = set(EXPECTED) - {"TensorFlow Modules"}
