"""``import_extra``: a missing extra skips the tests that need it, except in CI."""

import pytest

from tests.extras import import_extra


def test_a_missing_extra_skips_by_default(monkeypatch):
    monkeypatch.delenv("AUTOGRAPH_REQUIRE_EXTRAS", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no_such_extra_module"):
        import_extra("no_such_extra_module")


def test_a_missing_extra_fails_where_extras_are_required(monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_REQUIRE_EXTRAS", "1")
    with pytest.raises(ModuleNotFoundError, match="no_such_extra_module"):
        import_extra("no_such_extra_module")


def test_an_installed_module_is_imported(monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_REQUIRE_EXTRAS", "1")
    assert import_extra("json").dumps([1]) == "[1]"
