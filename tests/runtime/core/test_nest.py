"""``runtime.core.nest`` as ``tf.nest`` documents it: a dict's leaves go by sorted key, and
``pack_sequence_as`` gives back a dict with the structure's own key order."""

from __future__ import annotations

import collections

import runtime as rt
from runtime.core import nest


def test_pack_sequence_as_keeps_the_structures_key_order():
    # tf.nest.pack_sequence_as's documented example.
    structure = {"key3": "", "key1": "", "key2": ""}
    packed = nest.pack_sequence_as(structure, ["value1", "value2", "value3"])
    assert list(packed.items()) == [("key3", "value3"), ("key1", "value1"), ("key2", "value2")]


def test_nested_dicts_keep_their_orders():
    structure = {"key3": {"c": ("alpha", "beta"), "a": "gamma"}, "key1": {"e": "v", "d": "w"}}
    packed = nest.pack_sequence_as(structure, ["val2", "val1", 3.0, 1.0, 2.0])
    assert packed == {"key3": {"c": (1.0, 2.0), "a": 3.0}, "key1": {"e": "val1", "d": "val2"}}
    assert list(packed) == ["key3", "key1"] and list(packed["key3"]) == ["c", "a"]


def test_map_structure_keeps_the_key_order_and_the_dict_type():
    ordered = collections.OrderedDict([("z", 1), ("a", 2)])
    mapped = nest.map_structure(lambda v: v * 10, ordered)
    assert type(mapped) is collections.OrderedDict and list(mapped.items()) == [
        ("z", 10),
        ("a", 20),
    ]
    assert nest.flatten(ordered) == [2, 1]  # flattened by sorted key, as tf.nest


def test_a_functional_models_dict_outputs_keep_their_order():
    keras = rt.keras
    keras.backend.clear_session()
    x = keras.Input((3,))
    model = keras.Model(x, {"z_out": keras.layers.Dense(1)(x), "a_out": keras.layers.Dense(2)(x)})
    result = model(rt.ones((2, 3)))
    assert list(result) == ["z_out", "a_out"]
    assert [v.shape[-1] for v in result.values()] == [1, 2]
