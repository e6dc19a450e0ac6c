"""TensorFlow's guide "Introduction to modules, layers, and models"
(tensorflow.org/guide/intro_to_modules), its code with this project's names: ``tf.X`` is
``rt.X``, ``tf.function`` is ``ag.function``, ``tf.keras`` and ``keras`` are ``rt.keras``.
Each ``== title ==`` is a part of the guide; a cell's last expression, which the notebook
shows, is printed with ``show``. It writes its files (checkpoint, saved model, logs, the
``.keras`` file) in a new temporary directory. ``tests/test_guides.py`` compares each part
with what TensorFlow prints.

Cells left out:
- ``%load_ext tensorboard`` and ``%tensorboard --logdir logs/func``: notebook magics.
- ``!ls my_checkpoint*``, ``!ls -l the_saved_model``, ``!ls -l the_saved_model/variables``:
  shell commands listing TensorFlow's own file layout (``.index``, ``.data-00000-of-00001``,
  ``saved_model.pb``), which the project's formats do not share (docs/modules-and-saving.md).

    python examples/guides/modules.py [SECTION ...]
"""

import os
import tempfile
from datetime import datetime

from sections import main, section, show

import autograph as ag
import runtime as rt
from runtime import keras

SECTIONS = []
os.chdir(tempfile.mkdtemp(prefix="guide-modules-"))  # ours: the files go to a fresh directory


@section(SECTIONS, "TensorFlow Modules")
def tensorflow_modules():
    class SimpleModule(rt.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.a_variable = rt.Variable(5.0, name="train_me")
            self.non_trainable_variable = rt.Variable(5.0, trainable=False, name="do_not_train_me")

        def __call__(self, x):
            return self.a_variable * x + self.non_trainable_variable

    simple_module = SimpleModule(name="simple")

    show(simple_module(rt.constant(5.0)))

    # All trainable variables
    print("trainable variables:", simple_module.trainable_variables)
    # Every variable
    print("all variables:", simple_module.variables)


class Dense(rt.Module):
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = rt.Variable(rt.random.normal([in_features, out_features]), name="w")
        self.b = rt.Variable(rt.zeros([out_features]), name="b")

    def __call__(self, x):
        y = rt.matmul(x, self.w) + self.b
        return rt.nn.relu(y)


class SequentialModule(rt.Module):
    def __init__(self, name=None):
        super().__init__(name=name)

        self.dense_1 = Dense(in_features=3, out_features=3)
        self.dense_2 = Dense(in_features=3, out_features=2)

    def __call__(self, x):
        x = self.dense_1(x)
        return self.dense_2(x)


@section(SECTIONS, "A two-layer model")
def two_layer_model():
    # You have made a model!
    my_model = SequentialModule(name="the_model")

    # Call it, with random results
    print("Model results:", my_model(rt.constant([[2.0, 2.0, 2.0]])))

    print("Submodules:", my_model.submodules)

    for var in my_model.variables:
        print(var, "\n")


class FlexibleDenseModule(rt.Module):
    # Note: No need for `in_features`
    def __init__(self, out_features, name=None):
        super().__init__(name=name)
        self.is_built = False
        self.out_features = out_features

    def __call__(self, x):
        # Create variables on first call.
        if not self.is_built:
            self.w = rt.Variable(rt.random.normal([x.shape[-1], self.out_features]), name="w")
            self.b = rt.Variable(rt.zeros([self.out_features]), name="b")
            self.is_built = True

        y = rt.matmul(x, self.w) + self.b
        return rt.nn.relu(y)


# Used in a module
class MySequentialModule(rt.Module):
    def __init__(self, name=None):
        super().__init__(name=name)

        self.dense_1 = FlexibleDenseModule(out_features=3)
        self.dense_2 = FlexibleDenseModule(out_features=2)

    def __call__(self, x):
        x = self.dense_1(x)
        return self.dense_2(x)


@section(SECTIONS, "Waiting to create variables")
def waiting_to_create_variables():
    global my_model
    my_model = MySequentialModule(name="the_model")
    print("Model results:", my_model(rt.constant([[2.0, 2.0, 2.0]])))


@section(SECTIONS, "Saving weights")
def saving_weights():
    chkp_path = "my_checkpoint"
    checkpoint = rt.train.Checkpoint(model=my_model)
    show(checkpoint.write(chkp_path))

    show(rt.train.list_variables(chkp_path))


@section(SECTIONS, "Restoring weights")
def restoring_weights():
    new_model = MySequentialModule()
    new_checkpoint = rt.train.Checkpoint(model=new_model)
    new_checkpoint.restore("my_checkpoint")

    # Should be the same result as above
    show(new_model(rt.constant([[2.0, 2.0, 2.0]])))


@section(SECTIONS, "Saving functions")
def saving_functions():
    global MySequentialModule, my_model

    class MySequentialModule(rt.Module):
        def __init__(self, name=None):
            super().__init__(name=name)

            self.dense_1 = Dense(in_features=3, out_features=3)
            self.dense_2 = Dense(in_features=3, out_features=2)

        @ag.function
        def __call__(self, x):
            x = self.dense_1(x)
            return self.dense_2(x)

    # You have made a model with a graph!
    my_model = MySequentialModule(name="the_model")

    print(my_model([[2.0, 2.0, 2.0]]))
    print(my_model([[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]]))


@section(SECTIONS, "Tracing the graph for TensorBoard")
def tensorboard_trace():
    # Set up logging.
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    logdir = f"logs/func/{stamp}"
    writer = rt.summary.create_file_writer(logdir)

    # Create a new model to get a fresh trace
    # Otherwise the summary will not see the graph.
    new_model = MySequentialModule()

    # Bracket the function call with
    # rt.summary.trace_on() and rt.summary.trace_export().
    rt.summary.trace_on(graph=True)
    rt.profiler.experimental.start(logdir)
    # Call only one ag.function when tracing.
    print(new_model(rt.constant([[2.0, 2.0, 2.0]])))
    with writer.as_default():
        rt.summary.trace_export(name="my_func_trace", step=0, profiler_outdir=logdir)


@section(SECTIONS, "Creating a SavedModel")
def creating_a_saved_model():
    rt.saved_model.save(my_model, "the_saved_model")

    new_model = rt.saved_model.load("the_saved_model")

    show(isinstance(new_model, SequentialModule))

    print(my_model([[2.0, 2.0, 2.0]]))
    print(my_model([[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]]))


@section(SECTIONS, "Keras layers")
def keras_layers():
    class MyDense(rt.keras.layers.Layer):
        # Adding **kwargs to support base Keras layer arguments
        def __init__(self, in_features, out_features, **kwargs):
            super().__init__(**kwargs)

            # This will soon move to the build step; see below
            self.w = rt.Variable(rt.random.normal([in_features, out_features]), name="w")
            self.b = rt.Variable(rt.zeros([out_features]), name="b")

        def call(self, x):
            y = rt.matmul(x, self.w) + self.b
            return rt.nn.relu(y)

    simple_layer = MyDense(name="simple", in_features=3, out_features=3)

    show(simple_layer([[2.0, 2.0, 2.0]]))


class FlexibleDense(rt.keras.layers.Layer):
    # Note the added `**kwargs`, as Keras supports many arguments
    def __init__(self, out_features, **kwargs):
        super().__init__(**kwargs)
        self.out_features = out_features

    def build(self, input_shape):  # Create the state of the layer (weights)
        self.w = rt.Variable(rt.random.normal([input_shape[-1], self.out_features]), name="w")
        self.b = rt.Variable(rt.zeros([self.out_features]), name="b")

    def call(self, inputs):  # Defines the computation from inputs to outputs
        return rt.matmul(inputs, self.w) + self.b


@section(SECTIONS, "The build step")
def the_build_step():
    global flexible_dense
    # Create the instance of the layer
    flexible_dense = FlexibleDense(out_features=3)

    show(flexible_dense.variables)

    # Call it, with predictably random results
    print("Model results:", flexible_dense(rt.constant([[2.0, 2.0, 2.0], [3.0, 3.0, 3.0]])))

    show(flexible_dense.variables)


@section(SECTIONS, "The build step: an input that does not fit")
def an_input_that_does_not_fit():
    try:
        print("Model results:", flexible_dense(rt.constant([[2.0, 2.0, 2.0, 2.0]])))
    except rt.errors.InvalidArgumentError as e:
        print("Failed:", e)


@section(SECTIONS, "Keras models")
def keras_models():
    global MySequentialModel, my_sequential_model

    @keras.saving.register_keras_serializable()
    class MySequentialModel(rt.keras.Model):
        def __init__(self, name=None, **kwargs):
            super().__init__(**kwargs)

            self.dense_1 = FlexibleDense(out_features=3)
            self.dense_2 = FlexibleDense(out_features=2)

        def call(self, x):
            x = self.dense_1(x)
            return self.dense_2(x)

    # You have made a Keras model!
    my_sequential_model = MySequentialModel(name="the_model")

    # Call it on a tensor, with random results
    print("Model results:", my_sequential_model(rt.constant([[2.0, 2.0, 2.0]])))

    show(my_sequential_model.variables)

    show(my_sequential_model.submodules)


@section(SECTIONS, "The functional API")
def the_functional_api():
    inputs = rt.keras.Input(
        shape=[
            3,
        ]
    )

    x = FlexibleDense(3)(inputs)
    x = FlexibleDense(2)(x)

    my_functional_model = rt.keras.Model(inputs=inputs, outputs=x)

    my_functional_model.summary()

    show(my_functional_model(rt.constant([[2.0, 2.0, 2.0]])))


@section(SECTIONS, "Saving Keras models")
def saving_keras_models():
    my_sequential_model.save("exname_of_file.keras")

    reconstructed_model = rt.keras.models.load_model("exname_of_file.keras")

    show(reconstructed_model(rt.constant([[2.0, 2.0, 2.0]])))


if __name__ == "__main__":
    main(SECTIONS)
