"""The seed's DemoModule: variables under a module's name scope, saved, then loaded and run
in a separate process that has none of this file's code.

    python examples/saved_model_demo.py [DIRECTORY]
"""

import subprocess
import sys
import tempfile

import autograph as ag
import runtime as rt

LOADER = """
import sys
import runtime as rt

demo2 = rt.saved_model.load(sys.argv[1])
demo2.add_print(rt.constant(5.0))
print(demo2.x)
"""


class DemoModule(rt.Module):
    def __init__(self, init_value=rt.constant(0.0), name=None):  # noqa: B008 (as in the seed)
        super().__init__(name=name)
        with self.name_scope:
            self.x = rt.Variable(init_value, dtype=rt.float32, trainable=True)

    @ag.function(input_signature=[rt.TensorSpec(shape=[], dtype=rt.float32)])
    def add_print(self, a):
        with self.name_scope:
            self.x.assign_add(a)
            rt.print(self.x)
            return self.x


def main(argv):
    path = argv[0] if argv else tempfile.mkdtemp(prefix="demo_")
    demo = DemoModule(init_value=rt.constant(1.0))
    demo.add_print(rt.constant(5.0))
    print(demo.variables)
    print(demo.trainable_variables)
    print(demo.submodules)
    rt.saved_model.save(demo, path, signatures={"serving_default": demo.add_print})
    print(rt.saved_model.show(path).replace(path, "DIRECTORY"))
    # A fresh interpreter, without this file: only the saved directory is read.
    subprocess.run([sys.executable, "-c", LOADER, path], check=True)


if __name__ == "__main__":
    main(sys.argv[1:])
