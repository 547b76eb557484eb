"""herd's rules on which of the tests of a command line run: ``-names`` keeps only the
tests named, ``-excl`` drops the tests named, and a test name seen again is skipped
silently when its hash is the same (the same test) and is an error otherwise."""

from __future__ import annotations

from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.litmus.base.errors import InputError


class Selection:
    """The tests of one run admitted so far (a :data:`herd_compat.pipeline.Admit`)."""

    def __init__(self, cfg: RunConfig) -> None:
        self.names = cfg.names
        self.excl = cfg.excl
        self.seen: dict[str, tuple[str, str]] = {}  # name -> (hash, path)

    def __call__(self, path: str, name: str, hash: str) -> bool:
        """Whether the test ``name`` read from ``path`` runs (an InputError when another
        test of that name, with another hash, already ran)."""
        if self.names is not None and name not in self.names:
            return False
        if name in self.excl:
            return False
        if name in self.seen:
            first_hash, first_path = self.seen[name]
            if first_hash == hash:
                return False
            raise InputError(path, 0, 0, f"different hashes for test {name} (also in {first_path})")
        self.seen[name] = (hash, path)
        return True
