"""Report files a command writes (``validate --json/--junit``, ``diff --json``): checked
before the work starts, so that a long campaign does not end on a path it cannot write
(a directory, a folder that does not exist, a name too long), and written so that a
failure (a full disk, ``/dev/full``) is one :class:`InputError` about the file.
"""

from __future__ import annotations

import os

from herdsman.litmus.base.errors import InputError

#: The longest file name (one path component) file systems take, in bytes.
NAME_MAX = 255


def check_output_file(path: str, option: str) -> None:
    """Refuse at once a report file ``path`` (given to ``option``) that cannot be
    written: a directory, in a missing folder, or a name over :data:`NAME_MAX` bytes."""
    if not path:
        raise InputError(option, 0, 0, f"{option} needs a file name")
    if os.path.isdir(path):
        raise InputError(path, 0, 0, f"cannot write the {option} report: is a directory")
    for part in path.split(os.sep):
        if len(os.fsencode(part)) > NAME_MAX:
            raise InputError(path, 0, 0, f"cannot write the {option} report: file name too long")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise InputError(
            path, 0, 0, f"cannot write the {option} report: no such directory {folder}"
        )


def write_output_file(path: str, data: bytes, option: str) -> None:
    """Write the report ``data`` to ``path``; failing to is an InputError about it."""
    try:
        with open(path, "wb") as f:
            f.write(data)
    except OSError as e:
        raise InputError(
            path, 0, 0, f"cannot write the {option} report: {e.strerror or e}"
        ) from None
