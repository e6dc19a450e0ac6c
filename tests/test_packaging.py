"""What a newcomer installs: the distribution's name, version, license, typing marker, extras'
install hints, and documentation that stays inside the repository."""

import importlib.metadata
import re
from pathlib import Path

import pytest

import autograph as ag
import runtime as rt
from runtime import _version, extras

ROOT = Path(__file__).resolve().parent.parent
DISTRIBUTION = "autograph-numpy"

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = None


@pytest.fixture(scope="module")
def project():
    if tomllib is None:
        pytest.skip("tomllib is Python 3.11's")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_the_distribution_is_named_for_what_it_is_and_its_hints_say_so(project):
    assert project["name"] == extras.DISTRIBUTION == DISTRIBUTION
    assert extras.install_hint("tensorboard") == 'pip install "autograph-numpy[tensorboard]"'
    assert set(project["optional-dependencies"]) >= {"tensorboard", "onnx", "jax", "bench", "test"}


def test_one_version_for_both_packages_and_the_metadata(project):
    assert "version" in project["dynamic"]
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "runtime._version.__version__"
    }
    assert ag.__version__ == rt.__version__ == _version.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", rt.__version__)
    try:
        installed = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return  # run from a checkout that is not installed under this name
    assert installed == rt.__version__


def test_license_classifiers_and_typing_marker(project):
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.lstrip().startswith("Apache License") and "Version 2.0, January 2004" in text
    low = int(project["requires-python"].removeprefix(">=3."))
    for minor in range(low, 14):
        assert f"Programming Language :: Python :: 3.{minor}" in project["classifiers"]
    assert "Typing :: Typed" in project["classifiers"]
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]
    for package in ("runtime", "autograph"):
        assert (ROOT / package / "py.typed").is_file()
        assert package_data[package] == ["py.typed"]


def _text_files():
    for pattern in ("*.md", "docs/*.md", "*.py", "runtime/**/*.py", "autograph/**/*.py"):
        yield from ROOT.glob(pattern)
    yield from (ROOT / "benchmarks").glob("*.py")
    yield ROOT / ".ci" / "run"


def test_no_install_hint_names_another_projects_distribution():
    wrong = re.compile(r"""pip install ["']?(autograph|runtime)\[""")
    offenders = [str(p.relative_to(ROOT)) for p in _text_files() if wrong.search(p.read_text())]
    assert offenders == []


def test_documentation_links_stay_inside_the_repository():
    for page in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", page.read_text()):
            if target.startswith(("http://", "https://")):
                continue
            path = (page.parent / target).resolve()
            assert path.is_relative_to(ROOT), (page.name, target)
            assert path.exists(), (page.name, target)


def test_the_public_namespaces_show_only_their_api():
    # `import json, os` in a namespace module would show in dir(rt.saved_model).
    for namespace in (rt.saved_model, rt.summary, rt.debugging, rt.compat.v1, rt.onnx):
        public = {n for n in dir(namespace) if not n.startswith("_")}
        assert public == set(namespace.__all__), namespace.__name__
    assert not {"dot", "text", "render", "eager_operators"} & set(dir(rt))
