"""TensorFlow's guide "Using the SavedModel format" (tensorflow.org/guide/saved_model), its
code with this project's names: ``tf.X`` is ``rt.X``, ``tf.function`` is ``ag.function``,
``tf.keras`` is ``rt.keras``. Each ``== title ==`` is a part of the guide; a cell's last
expression, which the notebook shows, is printed with ``show``. ``tests/test_guides.py``
compares each part with what TensorFlow prints.

What the guide downloads is replaced: the photograph of Grace Hopper by a random image (16 by
16 pixels, values in [-1, 1] as ``preprocess_input`` gives), ImageNet's label file by the names
``class 0`` ... ``class 999`` (after ``background``), and the pre-trained MobileNet by a model
of random weights whose last layer, as MobileNet's, is ``predictions`` with 1000 classes.

Cells left out:
- ``plt.imshow(img)`` and ``plt.axis('off')``: they draw the photograph.
- ``!ls {mobilenet_save_path}``, ``!saved_model_cli show ...``, ``!ls .../variables``: shell
  commands showing TensorFlow's own file layout and tool (the project's format is its own,
  and ``rt.saved_model.show`` its ``saved_model_cli``: docs/modules-and-saving.md).
- "General fine-tuning": the two cells listing MobileNet's own variables (``conv1/kernel:0``
  ...), which the random stand-in does not have.
- "Proto-splitting", "Load a SavedModel in C++" and the command line interface: not Python.

    python examples/guides/saved_model.py [SECTION ...]
"""

import os
import tempfile

import numpy as np
from sections import main, section, show

import autograph as ag
import runtime as rt

SECTIONS = []
tmpdir = tempfile.mkdtemp()
rt.random.set_seed(0)  # ours: the stand-ins for the downloads are the same each run


@section(SECTIONS, "Setup")
def setup():
    physical_devices = rt.config.list_physical_devices("GPU")
    for device in physical_devices:
        rt.config.experimental.set_memory_growth(device, True)


@section(SECTIONS, "Creating a SavedModel from Keras")
def creating_a_saved_model_from_keras():
    # Random stand-ins for the downloaded image, its preprocessing and ImageNet's labels.
    x = rt.random.uniform([1, 16, 16, 3], minval=-1.0, maxval=1.0)
    imagenet_labels = np.array(["background"] + [f"class {i}" for i in range(1000)])

    # A stand-in for rt.keras.applications.MobileNet(), with random weights.
    pretrained_model = rt.keras.Sequential(
        [
            rt.keras.layers.Flatten(input_shape=(16, 16, 3)),
            rt.keras.layers.Dense(1000, activation="softmax", name="predictions"),
        ]
    )
    result_before_save = pretrained_model(x)

    decoded = imagenet_labels[np.argsort(result_before_save)[0, ::-1][:5] + 1]

    print("Result before saving:\n", decoded)

    mobilenet_save_path = os.path.join(tmpdir, "mobilenet/1/")
    rt.saved_model.save(pretrained_model, mobilenet_save_path)

    loaded = rt.saved_model.load(mobilenet_save_path)
    print(list(loaded.signatures.keys()))  # ["serving_default"]

    infer = loaded.signatures["serving_default"]
    print(infer.structured_outputs)

    labeling = infer(rt.constant(x))[pretrained_model.output_names[0]]

    decoded = imagenet_labels[np.argsort(labeling)[0, ::-1][:5] + 1]

    print("Result after saving and loading:\n", decoded)


class CustomModule(rt.Module):
    def __init__(self):
        super().__init__()
        self.v = rt.Variable(1.0)

    @ag.function
    def __call__(self, x):
        print("Tracing with", x)
        return x * self.v

    @ag.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def mutate(self, new_v):
        self.v.assign(new_v)


@section(SECTIONS, "Saving a custom model")
def saving_a_custom_model():
    global module, module_no_signatures_path
    module = CustomModule()

    module_no_signatures_path = os.path.join(tmpdir, "module_no_signatures")
    module(rt.constant(0.0))
    print("Saving model...")
    rt.saved_model.save(module, module_no_signatures_path)


@section(SECTIONS, "Loading and using a custom model")
def loading_and_using_a_custom_model():
    global imported
    imported = rt.saved_model.load(module_no_signatures_path)
    assert imported(rt.constant(3.0)).numpy() == 3
    imported.mutate(rt.constant(2.0))
    assert imported(rt.constant(3.0)).numpy() == 6


@section(SECTIONS, "Basic fine-tuning")
def basic_fine_tuning():
    optimizer = rt.keras.optimizers.SGD(0.05)

    def train_step():
        with rt.GradientTape() as tape:
            loss = (10.0 - imported(rt.constant(2.0))) ** 2
        variables = tape.watched_variables()
        grads = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(grads, variables))
        return loss

    for _ in range(10):
        # "v" approaches 5, "loss" approaches 0
        print(f"loss={train_step():.2f} v={imported.v.numpy():.2f}")


@section(SECTIONS, "Specifying signatures during export")
def specifying_signatures():
    assert len(imported.signatures) == 0


@section(SECTIONS, "A serving signature")
def a_serving_signature():
    global call
    module_with_signature_path = os.path.join(tmpdir, "module_with_signature")
    call = module.__call__.get_concrete_function(rt.TensorSpec(None, rt.float32))
    rt.saved_model.save(module, module_with_signature_path, signatures=call)

    imported_with_signatures = rt.saved_model.load(module_with_signature_path)
    show(list(imported_with_signatures.signatures.keys()))  # ["serving_default"]


@section(SECTIONS, "Multiple signatures")
def multiple_signatures():
    module_multiple_signatures_path = os.path.join(tmpdir, "module_with_multiple_signatures")
    signatures = {
        "serving_default": call,
        "array_input": module.__call__.get_concrete_function(rt.TensorSpec([None], rt.float32)),
    }

    rt.saved_model.save(module, module_multiple_signatures_path, signatures=signatures)

    imported_with_multiple_signatures = rt.saved_model.load(module_multiple_signatures_path)
    show(
        list(imported_with_multiple_signatures.signatures.keys())
    )  # ["serving_default", "array_input"]


@section(SECTIONS, "Output names")
def output_names():
    class CustomModuleWithOutputName(rt.Module):
        def __init__(self):
            super().__init__()
            self.v = rt.Variable(1.0)

        @ag.function(input_signature=[rt.TensorSpec(None, rt.float32)])
        def __call__(self, x):
            return {"custom_output_name": x * self.v}

    module_output = CustomModuleWithOutputName()
    call_output = module_output.__call__.get_concrete_function(rt.TensorSpec(None, rt.float32))
    module_output_path = os.path.join(tmpdir, "module_with_output_name")
    rt.saved_model.save(
        module_output, module_output_path, signatures={"serving_default": call_output}
    )

    imported_with_output_name = rt.saved_model.load(module_output_path)
    # {'custom_output_name': TensorSpec(shape=<unknown>, dtype=tf.float32, name='custom_output_name')}
    show(imported_with_output_name.signatures["serving_default"].structured_outputs)


if __name__ == "__main__":
    main(SECTIONS)
