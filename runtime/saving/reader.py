"""Reading a saved-model directory back: every part checked before anything is built or run.

The files are untrusted. The description is read only up to its size limit and
parsed as JSON; the arrays file must have the size and SHA-256 the description
gives, and is read once: the bytes checked are the bytes parsed. Only the
members the description names are read, each within the size its dtype and
shape allow, without pickles. Every op is checked against its row of the op
table: its attribute names and the kind of each value, then its inputs with the
row's shape and dtype inference, sub-graphs of If and While ops included. The
description's own checksum must match. Only then are functions compiled, and
the compiler writes no text of the graph into code. Every failure is a
SavedModelError naming the file and the problem.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import json
import os
import re

from runtime.core.graph import PLACEHOLDER, FuncGraph, is_valid_op_name
from runtime.core.op_def import OPS
from runtime.core.tensor_shape import MAX_RANK
from runtime.core.tensor_spec import TensorSpec
from runtime.functions.graph_function import GraphFunction
from runtime.ops.constant_ops import static_values_once
from runtime.ops.function_ops import CALL
from runtime.saving import version1
from runtime.saving.arguments import decode_arguments
from runtime.saving.arrays import ArraysReader
from runtime.saving.attributes import decode_attr
from runtime.saving.constants import read_defaults
from runtime.saving.files import ModelChanged, open_regular_file, read_limited
from runtime.saving.format import (
    ARRAYS_FILE,
    DESCRIPTION_FILE,
    FORMAT,
    MAX_ARRAYS_BYTES,
    MAX_CALL_NESTING,
    MAX_DESCRIPTION_BYTES,
    MAX_DESCRIPTION_VALUES,
    MAX_GRAPH_DEPTH,
    VERSION,
    ArraysFileError,
    Damage,
    SavedModelError,
    checksum,
    decode_structure,
    describe,
    expect,
    expect_list,
    expect_object,
    expect_str,
    is_saveable_name,
    json_values_bound,
    read_dtype,
    read_shape,
    shape_text,
)
from runtime.saving.loaded import LoadedConcreteFunction, LoadedObject, output_names
from runtime.saving.object_reader import ObjectReader, read_signatures
from runtime.saving.options import check_load_arguments
from runtime.saving.sub_graph_inputs import check_sub_graph_inputs
from runtime.state.variables import (
    VAR_HANDLE,
    OwnedArray,
    Variable,
    VariableAggregation,
    VariableSynchronization,
)

_ATTEMPTS = 20  # reads started again because a save committed meanwhile
_DESCRIPTION_FIELDS = (
    "format",
    "version",
    "functions",
    "objects",
    "signatures",
    "variables",
    "arrays",
    "checksum",
)
_MODES = {"synchronization": VariableSynchronization, "aggregation": VariableAggregation}
_VARIABLE_KEY = re.compile(r"v[0-9]{1,9}")
_SHA256 = re.compile(r"[0-9a-f]{64}")


def load(path, tags=None, options=None):
    """The object saved in ``path``: its functions callable, its variables live.

    ``tags`` (``"serve"``, the tag every saved model has, or None) and ``options`` (a
    ``LoadOptions``) are TensorFlow's arguments, checked as TensorFlow checks them.

    Nothing in the directory is executed or unpickled, whatever it holds. A
    load that runs alongside a save sees the model before the save or after
    it, never a mix.

    Raises:
        SavedModelError: ``path`` is missing, not a saved model, or damaged,
            truncated or hostile; the message names the file and the problem.
        ValueError: ``tags`` other than ``"serve"``.
    """
    check_load_arguments(path, tags, options)
    return _read(path)[0]


def contains_saved_model(path):
    """Whether the directory ``path`` holds a saved model (its description file), as
    TensorFlow's ``tf.saved_model.contains_saved_model``; nothing is read or checked."""
    return os.path.isfile(os.path.join(os.fspath(path), DESCRIPTION_FILE))


def show(path):
    """A description of what ``path`` holds: functions, signatures, their inputs and outputs,
    and the variables."""
    loaded, functions, version, variables = _read(path)
    lines = [f"saved model {path} (format {FORMAT} version {version})"]
    listed = [("function", k, fn) for k, fn in functions.items()]
    signatures = loaded.signatures if isinstance(loaded, LoadedObject) else {}
    listed += [("signature", k, s.function) for k, s in signatures.items()]
    for kind, name, fn in sorted(listed, key=lambda item: item[1]):
        lines.append(f"{kind} {name!r}:")
        lines.append("  inputs:")
        for spec in fn.input_signature:
            lines.append(f"    {spec.name}: {spec.dtype.name} shape {shape_text(spec.shape)}")
        lines.append("  outputs:")
        names = output_names(fn.graph.structured_outputs)
        for name, t in zip(names, fn.graph.outputs):
            lines.append(f"    {name}: {t.dtype.name} shape {shape_text(t.shape)}")
    lines.append("variables:")
    for v in variables:
        lines.append(
            f"  {v.name}: {v.dtype.name} shape {shape_text(v.shape)}"
            + ("" if v.trainable else " (not trainable)")
        )
    return "\n".join(lines)


def _damage(raw, description):
    """What is wrong with the description as a whole (its checksum, its layout), or None."""
    content = {k: v for k, v in description.items() if k != "checksum"}
    try:
        if checksum(content) != description["checksum"]:
            return "its checksum does not match its content: the file is damaged"
        if describe(description).encode("ascii") != raw:  # so no change of spelling goes unseen
            return "it is not laid out as a save writes it: the file is damaged"
    except (ValueError, RecursionError) as e:
        return f"it cannot be checked: {e}"
    return None


def _output_specs(opdef, inferred, saved):
    """The specs of an op's outputs: what its inputs and attributes make (``inferred``).

    The file's own (``saved``) may know less, never more: a shape the graph
    does not make would be trusted by callers and exports. A sub-graph's
    placeholder makes the shape of its attribute, which the op feeding the
    sub-graph checks against what it is given (``sub_graph_inputs``). No
    rank is over MAX_RANK.
    """
    for _, shape in inferred:
        expect(
            shape.rank is None or shape.rank <= MAX_RANK,
            f"an output would have {shape.rank} dimensions: too many dimensions in tensor "
            f"(at most {MAX_RANK})",
        )
    if len(inferred) != len(saved) or not all(
        d is sd and s.is_subtype_of(ss) for (d, s), (sd, ss) in zip(inferred, saved)
    ):
        raise Damage(
            f"its outputs are not what its inputs and attributes make: {_specs_text(inferred)} "
            f"(the file says {_specs_text(saved)})"
        )
    return inferred


def _specs_text(specs):
    text = ", ".join(f"{dtype.name} {shape_text(shape)}" for dtype, shape in specs)
    return text if len(text) <= 200 else text[:200] + "..."


def _read(path):
    for _ in range(_ATTEMPTS):
        try:
            return _Reader(path).read()
        except ModelChanged:
            continue
        except SavedModelError:
            raise
        except Exception as e:  # a check missed: still the loader's own error, with the cause
            raise SavedModelError(
                f"{path} is not a loadable saved model: {type(e).__name__}: {e}"
            ) from e
    raise SavedModelError(f"{path}: the model changed under every one of {_ATTEMPTS} reads")


class _Reader:
    def __init__(self, path):
        self.path = path
        self.description_path = os.path.join(path, DESCRIPTION_FILE)
        self.where = "the description"
        self._call_nesting = 0

    @contextlib.contextmanager
    def _in_description(self):
        """Damage found in the description becomes a SavedModelError naming its file."""
        try:
            yield
        except Damage as e:
            raise SavedModelError(f"{self.description_path}: {self.where}: {e}") from None

    def read(self):
        raw, written = self._description()
        # Reported after the checks of the content (whose messages say more, and which refuse
        # a hostile graph before the whole text is written again to compare its layout), or
        # as the cause when the arrays file does not match what the description says.
        self.damage = functools.cache(lambda: _damage(raw, written))
        with self._in_description():
            description = version1.upgrade(written) if written["version"] == 1 else written
        with self._open_arrays(raw, description["arrays"]) as (arrays_data, arrays_path):
            # Each array reference has a "key" and names one member (two for strings): a zip
            # directory listing more members is refused before any of them costs memory.
            max_members = 2 * raw.count(b'"key"')
            self.arrays = ArraysReader(
                io.BytesIO(arrays_data), arrays_path, len(arrays_data), max_members
            )
            with self._in_description(), static_values_once():
                self.variables = {}
                for entry in expect_list(description["variables"], "'variables'"):
                    self._variable(entry)
                graphs = {}
                for name, entry in expect_object(description["functions"], "'functions'").items():
                    self.where = f"function {name!r:.100}"
                    expect(is_saveable_name(name), "a function name must be printable text")
                    graphs[name] = self._function(entry)
                self.where = "the description"
                damage = self.damage()
                expect(damage is None, damage)
            self.arrays.check_all_read()
        functions = {}
        for key, (name, graph, arguments, traced, defaults) in graphs.items():
            try:
                functions[key] = LoadedConcreteFunction(name, graph, arguments, traced, defaults)
            except Exception as e:
                raise SavedModelError(
                    f"{self.description_path}: function {key!r} does not compile: {e}"
                ) from e
        with self._in_description():
            self.where = "'objects'"
            loaded = ObjectReader(description["objects"], self.variables, functions).root()
            self.where = "the description"
            signatures = read_signatures(description["signatures"], functions)
            if isinstance(loaded, LoadedObject):
                loaded.signatures = signatures
        return loaded, functions, description["version"], list(self.variables.values())

    # --- the two files -------------------------------------------------------------------------

    def _description(self):
        if not os.path.isdir(self.path):
            raise SavedModelError(f"{self.path} is not a directory holding a saved model")
        raw = self._description_bytes()
        values = json_values_bound(raw)
        if values > MAX_DESCRIPTION_VALUES:  # parsing them would take ~50 bytes of memory each
            raise SavedModelError(
                f"{self.description_path}: the description holds up to {values} JSON values, "
                f"over the limit of {MAX_DESCRIPTION_VALUES} values"
            )
        try:
            description = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as e:
            raise SavedModelError(f"{self.description_path}: not valid JSON: {e}") from None
        with self._in_description():
            expect_object(description, "the description")
            expect(description.get("format") == FORMAT, f"this is not a {FORMAT} directory")
            version = description.get("version")
            expect(
                type(version) is int and version in (1, VERSION),
                f"format version {version!r:.20} is not supported (this is {VERSION}): "
                "save the model again with this version",
            )
            expect(
                "arrays" in description or "checksum" in description,
                "it was written by an earlier layout, without checksums: save the model again",
            )
            fields = version1.FIELDS if version == 1 else _DESCRIPTION_FIELDS
            expect_object(description, "the description", keys=fields)
            expect(
                type(description["checksum"]) is str, "'checksum' must be a SHA-256 in hex digits"
            )
        return raw, description

    def _description_bytes(self):
        try:
            file, _ = open_regular_file(
                self.description_path, MAX_DESCRIPTION_BYTES, "the description"
            )
        except FileNotFoundError:
            raise SavedModelError(
                f"{self.path} is not a saved model of this project: {DESCRIPTION_FILE} is missing"
            ) from None
        with file:
            return read_limited(
                file, MAX_DESCRIPTION_BYTES, self.description_path, "the description"
            )

    @contextlib.contextmanager
    def _open_arrays(self, raw, reference):
        """``(bytes, path)`` of the arrays file, checked to have the size and SHA-256 that
        ``reference`` gives.

        When the description is damaged, that is the error, not the mismatch it causes.
        """
        try:
            with self._checked_arrays(raw, reference) as opened:
                yield opened
        except ArraysFileError as e:
            damage = self.damage()
            if damage is None:
                raise
            raise SavedModelError(f"{self.description_path}: {damage}") from e

    @contextlib.contextmanager
    def _checked_arrays(self, raw, reference):
        with self._in_description():
            self.where = "'arrays'"
            expect_object(reference, "it", keys=("file", "bytes", "sha256"))
            name, size, digest = reference["file"], reference["bytes"], reference["sha256"]
            expect(type(name) is str and ARRAYS_FILE.fullmatch(name), "bad arrays file name")
            expect(type(size) is int and 0 < size <= MAX_ARRAYS_BYTES, "bad arrays file size")
            expect(type(digest) is str and _SHA256.fullmatch(digest), "bad arrays file SHA-256")
            self.where = "the description"
        path = os.path.join(self.path, name)
        try:
            file, actual = open_regular_file(
                path, MAX_ARRAYS_BYTES, "the arrays file", ArraysFileError
            )
        except FileNotFoundError:
            if self._description_bytes() != raw:
                raise ModelChanged() from None  # a save replaced it: read the new one
            raise ArraysFileError(f"{path}: the arrays file is missing") from None
        with file:
            if actual != size:
                raise ArraysFileError(
                    f"{path}: the arrays file has {actual} bytes, but the description says {size}"
                )
            try:
                data = file.read(size + 1)
            except OSError as e:
                raise ArraysFileError(f"{path}: cannot read the arrays file: {e}") from e
        if len(data) != size:
            raise ArraysFileError(f"{path}: the arrays file changed size while it was read")
        # The bytes hashed are the bytes parsed: a file rewritten after the check is not read.
        if hashlib.sha256(data).hexdigest() != digest:
            raise ArraysFileError(f"{path}: the arrays file is damaged (its SHA-256 differs)")
        yield data, path

    # --- the parts of the description ---------------------------------------------------------

    def _variable(self, entry):
        self.where = "a variable"
        modes = [k for k in _MODES if type(entry) is dict and k in entry]
        expect_object(entry, "it", keys=("key", "name", "trainable", "value", *modes))
        name = entry["name"]
        expect(is_saveable_name(name) and name.endswith(":0"), "a variable name is damaged")
        self.where = f"variable {name!r}"
        key = entry["key"]
        expect(type(key) is str and _VARIABLE_KEY.fullmatch(key), "its key is damaged")
        expect(key not in self.variables, f"its key {key!r} is used twice")
        expect(type(entry["trainable"]) is bool, "'trainable' must be true or false")
        value = self.arrays.read(entry["value"], "its value")  # a fresh array: the variable's own
        dtype = read_dtype(entry["value"]["dtype"])
        chosen = {}
        for mode in modes:
            kind = _MODES[mode]
            expect(
                type(entry[mode]) is str and entry[mode] in kind.__members__,
                f"{mode!r} must name a {kind.__name__}",
            )
            chosen[mode] = kind[entry[mode]]
        variable = Variable(OwnedArray(value), dtype=dtype, trainable=entry["trainable"], **chosen)
        variable.name = name
        variable._base_name = name[:-2]
        self.variables[key] = variable

    def _function(self, entry):
        optional = ("defaults",) if type(entry) is dict and "defaults" in entry else ()
        expect_object(
            entry, "it", keys=("name", "graph", "arguments", "outputs", "inputs", *optional)
        )
        name = expect_str(entry["name"], "its name")
        graph = self._graph(entry["graph"], name, depth=0)
        arguments = expect_list(entry["arguments"], "its arguments")
        expect(
            arguments == [t.op.name for t in graph.inputs],
            "its arguments are not the names of its graph's inputs",
        )
        structure = decode_structure(entry["outputs"], len(graph.outputs), "its output structure")
        graph.structured_outputs = structure
        specs = [TensorSpec(t.shape, t.dtype, a) for t, a in zip(graph.inputs, arguments)]
        traced = decode_arguments(entry["inputs"], len(specs), specs, self.variables)
        defaults = read_defaults(entry.get("defaults", []), specs)
        return name, graph, arguments, traced, defaults

    # --- graphs ------------------------------------------------------------------------------

    def graph(self, data, depth):
        """A sub-graph in an attribute (of an If or While op): checked like a function's."""
        return self._graph(data, "sub_graph", depth)

    def function(self, data, depth):
        """A called function (of a PartitionedCall op), nested at most MAX_CALL_NESTING deep.

        Checking a call builds the backward function of what it calls, whose
        size grows with each order of derivative; calls nested n deep ask for
        derivatives of order n, so the nesting is bounded.
        """
        self._call_nesting += 1
        try:
            expect(
                self._call_nesting <= MAX_CALL_NESTING,
                f"called functions are nested over {MAX_CALL_NESTING} deep",
            )
            return GraphFunction(self._graph(data, "function", depth))
        finally:
            self._call_nesting -= 1

    def _graph(self, data, name, depth):
        expect(depth <= MAX_GRAPH_DEPTH, f"sub-graphs are nested over {MAX_GRAPH_DEPTH} deep")
        expect_object(data, "a graph", keys=("ops", "inputs", "outputs"))
        graph = FuncGraph(name)
        tensors, ops = {}, {}
        where = self.where
        for op_data in expect_list(data["ops"], "a graph's ops"):
            self.where = where
            op = self._op(graph, op_data, tensors, ops, depth)
            ops[op.name] = op
            tensors.update((t.name, t) for t in op.outputs)
        self.where = where
        graph.inputs = [self._tensor(tensors, t) for t in expect_list(data["inputs"], "inputs")]
        graph.outputs = [self._tensor(tensors, t) for t in expect_list(data["outputs"], "outputs")]
        placeholders = [op.outputs[0] for op in ops.values() if op.opdef is PLACEHOLDER]
        expect(
            {id(t) for t in graph.inputs} == {id(t) for t in placeholders}
            and len(graph.inputs) == len(placeholders),
            "a graph's inputs must be its placeholders, each once",
        )
        return graph

    def _tensor(self, tensors, name):
        expect(type(name) is str and name in tensors, f"no tensor {name!r:.100} comes before")
        return tensors[name]

    def _op(self, graph, data, tensors, ops, depth):
        expect_object(
            data, "an op", keys=("name", "type", "inputs", "control_inputs", "attrs", "outputs")
        )
        name, op_type = data["name"], data["type"]
        expect(
            is_valid_op_name(name) and len(name) <= 1000,
            f"{name!r:.100} is not a valid op name",
        )
        expect(name not in ops, f"op name {name!r} is used twice")
        expect(
            type(op_type) is str and op_type in OPS, f"op {name!r}: unknown type {op_type!r:.60}"
        )
        self.where += f", op {name!r} ({op_type})"
        opdef = OPS[op_type]
        inputs = [self._tensor(tensors, t) for t in expect_list(data["inputs"], "its inputs")]
        controls = expect_list(data["control_inputs"], "its control inputs")
        for c in controls:
            expect(type(c) is str and c in ops, f"no op {c!r:.100} comes before")
        attrs = self._attrs(opdef, expect_object(data["attrs"], "its attributes"), depth)
        # In a graph a call is ready for one order of gradients; more is an edit, each order
        # a backward function built when the call is checked.
        expect(opdef is not CALL or attrs["depth"] == 1, "a call in a graph must have depth 1")
        saved = [self._spec(s) for s in expect_list(data["outputs"], "its outputs")]
        try:
            inferred = opdef.infer(inputs, attrs)  # the graph must make sense, not just parse
        except Exception as e:
            raise Damage(f"it does not fit its inputs: {type(e).__name__}: {e}") from None
        check_sub_graph_inputs(opdef, inputs, attrs)
        specs = _output_specs(opdef, inferred, saved)
        op = graph.create_op(opdef, inputs, attrs, name, specs, [ops[c] for c in controls])
        expect(op.name == name, f"op name {name!r} is used twice")
        if opdef is VAR_HANDLE:  # so that a tape sees the variable a call reads (gradients)
            graph.variable_handles.setdefault(id(attrs["variable"]), op.outputs[0])
        return op

    def _attrs(self, opdef, data, depth):
        """The op's attributes: exactly those its row declares, each of the declared kind."""
        unknown = data.keys() - opdef.attrs.keys()
        if unknown:
            raise Damage(f"unknown attribute {min(unknown)!r:.100}")
        attrs = {}
        where = self.where
        for key, kind in opdef.attrs.items():
            expect(key in data, f"attribute {key!r} is missing")
            self.where = f"{where}, attribute {key!r}"
            value = decode_attr(data[key], self, depth)
            self.where = where
            expect(kind.accepts(value), f"attribute {key!r} must be {kind.description}")
            attrs[key] = value
        return attrs

    def _spec(self, data):
        expect_object(data, "an output", keys=("dtype", "shape"))
        return read_dtype(data["dtype"], "an output's dtype"), read_shape(data["shape"])

    # --- what attribute values refer to (see runtime.saving.attributes) -----------------------

    def variable(self, key):
        expect(type(key) is str and key in self.variables, f"no variable {key!r:.40}")
        return self.variables[key]

    def array(self, reference):
        return self.arrays.read(reference, "the array")

    def attr(self, data, depth):
        return decode_attr(data, self, depth)
