"""A directory saved in format version 1 (the layout before the object tree) still loads.

``data/version1_counter`` was written by this project's version 1 ``rt.saved_model.save``
(commit 253cfe3) of::

    class Counter(rt.Module):
        def __init__(self):
            super().__init__()
            with self.name_scope:
                self.total = rt.Variable(1.0)

        @ag.function(input_signature=[rt.TensorSpec([None], rt.float32)], autograph=False)
        def add(self, a):
            self.total.assign_add(rt.reduce_sum(a))
            return self.total * 2.0

    rt.saved_model.save(Counter(), path)
"""

import json
import os
import shutil

import numpy as np
import pytest

import runtime as rt

FIXTURE = os.path.join(os.path.dirname(__file__), "data", "version1_counter")


@pytest.fixture
def path(tmp_path):
    copy = str(tmp_path / "counter")
    shutil.copytree(FIXTURE, copy)
    return copy


def test_the_fixture_is_a_version_1_directory(path):
    with open(os.path.join(path, "saved_model.json")) as f:
        document = json.load(f)
    assert document["version"] == 1 and "attributes" in document and "objects" not in document


def test_a_version_1_directory_loads_and_saves_again_as_version_2(path, tmp_path):
    loaded = rt.saved_model.load(path)
    assert loaded.total.numpy() == 1.0
    assert loaded.add(rt.constant([1.0, 2.0])).numpy() == 2.0 * (1.0 + 3.0)
    served = loaded.signatures["serving_default"](a=rt.constant([0.5]))
    assert served["output_0"].numpy() == 2.0 * 4.5
    again = str(tmp_path / "again")
    rt.saved_model.save(loaded, again)
    reloaded = rt.saved_model.load(again)
    assert reloaded.total.numpy() == 4.5
    np.testing.assert_array_equal(reloaded.add([1.0]).numpy(), 2.0 * 5.5)
    assert "version 2" in rt.saved_model.show(again)


def test_a_damaged_or_hostile_version_1_directory_is_refused_naming_the_file(path):
    from tests.runtime.saving.model_files import description, write_signed

    document = description(path)
    described = os.path.join(path, "saved_model.json")
    with open(described) as f:
        text = f.read()
    with open(described, "w") as f:
        f.write(text.replace('"trainable": true', '"trainable": false'))
    with pytest.raises(rt.saved_model.SavedModelError, match="checksum does not match"):
        rt.saved_model.load(path)
    for attributes, problem in [
        ({"__class__": {"variable": "v0"}}, "cannot name an attribute"),
        ({"add": {"function": "nowhere"}}, "no function 'nowhere'"),
        ({"add": "add"}, "attribute 'add' is damaged"),
    ]:
        write_signed(path, dict(document, attributes=attributes))
        with pytest.raises(rt.saved_model.SavedModelError) as error:
            rt.saved_model.load(path)
        assert str(error.value).startswith(described) and problem in str(error.value)
