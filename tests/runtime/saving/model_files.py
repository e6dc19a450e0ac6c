"""Helpers for tests that edit saved models: read a description, and write it back signed.

Signing (the checksums a save writes) lets a test's edit reach the loader's
checks behind the checksum, as an attacker's edit would.
"""

import hashlib
import json
import os

from runtime.saving.format import checksum, describe


def description(path):
    with open(os.path.join(path, "saved_model.json")) as f:
        return json.load(f)


def arrays_path(path):
    return os.path.join(path, description(path)["arrays"]["file"])


def write_signed(path, document, arrays=None):
    """Writes ``document`` as ``path``'s description, with the checksums of a real save.

    ``arrays``: new bytes for the arrays file, whose size and SHA-256 are signed too.
    """
    document = dict(document)
    if arrays is not None and isinstance(document.get("arrays"), dict):
        with open(os.path.join(path, document["arrays"]["file"]), "wb") as f:
            f.write(arrays)
        document["arrays"] = dict(
            document["arrays"], bytes=len(arrays), sha256=hashlib.sha256(arrays).hexdigest()
        )
    document.pop("checksum", None)
    document["checksum"] = checksum(document)
    with open(os.path.join(path, "saved_model.json"), "w") as f:
        f.write(describe(document))


def files_of(path):
    """Every file of the directory with its bytes."""
    out = {}
    for name in sorted(os.listdir(path)):
        full = os.path.join(path, name)
        if os.path.isfile(full):
            with open(full, "rb") as f:
                out[name] = f.read()
    return out
