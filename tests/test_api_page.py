"""docs/api.md, the public API's page, names every public error class and the runtime's
gradient, control-flow and placement functions."""

from __future__ import annotations

import functools
import inspect
import pathlib

import runtime as rt

API_PAGE = (pathlib.Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text()


def test_every_error_class_is_on_the_api_page():
    classes = [
        name
        for name, value in vars(rt.errors).items()
        if inspect.isclass(value) and issubclass(value, Exception) and not name.startswith("_")
    ]
    assert len(classes) > 10
    assert [
        name for name in classes if f"`{name}`" not in API_PAGE and f".{name}`" not in API_PAGE
    ] == []


def test_the_functions_added_with_the_calling_conventions_are_on_the_api_page():
    names = [
        "rt.custom_gradient",
        "rt.recompute_grad",
        "rt.switch_case",
        "rt.clip_by_global_norm",
        "rt.linalg.global_norm",
        "rt.device",
        "rt.py_function",
    ]
    for name in names:  # each exists
        assert callable(functools.reduce(getattr, name.split(".")[1:], rt))
    assert [name for name in names if name not in API_PAGE] == []
