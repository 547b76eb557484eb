"""A model prepared for one skeleton: :class:`CatSession` runs the generated check and
partial functions on candidates (``session.check(rf, co=co)``), first the unspecialised
code, then, after :data:`SPECIALISE_AFTER` checks, the code of the skeleton's signature
when it has one of its own to make (see :mod:`cat.api`).  A search may call the functions
themselves (:meth:`CatSession.direct`, inside :meth:`CatSession.reporting`), telling the
session how many calls it made (:meth:`CatSession.spent`)."""

from __future__ import annotations

from collections.abc import Callable

from herdsman.cat.contract import PreparedModel, Verdict
from herdsman.cat.errors import CatError
from herdsman.cat.fused import CheckFn, PartialFn
from herdsman.cat.runtime import Runtime

#: A session running the unspecialised code switches to its signature's own code after
#: this many checks (a search that long pays for generating and compiling it, ~2 ms).
SPECIALISE_AFTER = 2000


class _Reporting:
    """``with``: a :class:`CatError` leaves as bad input (:meth:`CatSession.reporting`)."""

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, e: BaseException | None, tb: object
    ) -> None:
        if isinstance(e, CatError):
            raise e.to_input_error() from None


_REPORTING = _Reporting()


class CatSession:
    """A model prepared for one skeleton (see the module docstring).  ``specialise``,
    when given, makes the check code specialised to the skeleton's signature: the session
    runs ``check``/``partial`` (unspecialised) for :data:`SPECIALISE_AFTER` checks, then
    that code."""

    def __init__(
        self,
        model: PreparedModel,
        check: CheckFn,
        partial: PartialFn,
        runtime: Runtime,
        specialise: Callable[[], tuple[CheckFn, PartialFn]] | None = None,
    ) -> None:
        self.model = model
        self._check = check
        self._partial = partial
        self.runtime = runtime
        self._specialise = specialise
        self._budget = SPECIALISE_AFTER if specialise is not None else -1

    def _switch(self) -> None:
        """Run the specialised code from now on."""
        assert self._specialise is not None
        self._check, self._partial = self._specialise()
        self._specialise = None

    def check(
        self,
        rf: int,
        co: int | None = None,
        fw: int | None = None,
        explain: bool = False,
        want_shows: bool = False,
    ) -> list[Verdict]:
        """Run the model on one candidate: one Verdict per accepted or rejected ``with``
        choice; [] when the candidate is not one of the model's (native co not extending
        the model's base order, empty ``with`` set)."""
        self._budget -= 1
        try:
            if not self._budget:
                self._switch()
            return self._check(rf, co, fw, explain, want_shows)
        except CatError as e:
            raise e.to_input_error() from None

    def direct(self) -> tuple[CheckFn, PartialFn]:
        """The check and partial functions in use now (:meth:`check` and
        :meth:`partial_violation` without their frame), for a search that calls them
        inside :meth:`reporting` and tells :meth:`spent` how many calls it made."""
        return self._check, self._partial

    def spent(self, n: int) -> tuple[CheckFn, PartialFn] | None:
        """``n`` more calls of the functions of :meth:`direct` made: the functions to call
        from now on if the session has switched to its specialised code (None: the same)."""
        if self._specialise is None:
            return None
        self._budget -= n
        if self._budget > 0:
            return None
        self._switch()
        return self._check, self._partial

    def reporting(self) -> _Reporting:
        """A context turning a model's error met by the functions of :meth:`direct`
        into bad input (as :meth:`check` does)."""
        return _REPORTING

    def partial_violation(self, rf: int, co: int | None = None) -> bool:
        """Whether a monotone check already fails on this partial candidate (some reads
        without rf, co a partial order): then no completion is accepted."""
        self._budget -= 1
        try:
            if not self._budget:
                self._switch()
            return self._partial(rf, co, None)
        except CatError as e:
            raise e.to_input_error() from None
