"""Types of ``_core128``: ``_core.c`` built with 128-bit sets (see ``_core.pyi``)."""

from herdsman.engine.trust._core import Core as Core
from herdsman.engine.trust._core import Snapshot as Snapshot
