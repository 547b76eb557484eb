"""Thread prefixes as a lazily grown tree: each step of the semantics computed once.

Explorers walk a thread's executions event by event, and walk the same prefixes again
and again (every round of herd's value fixpoint, every graph of TruSt that holds them).
A :class:`PathNode` is one prefix of one thread: the state after it, what the thread does
next (computed on first use), and its children: the node after the next event (for an
event other than a read) or after each value read.  With a
:class:`~graphs.shapes.ShapeTable`, a node also knows the *shape* of its prefix (its
events up to values), so graphs of one shape share a skeleton.  A tree holds one node per
distinct prefix explored, not per execution.  Nodes point to their tree, never the
other way, so trees are freed by reference counting alone.
"""

from __future__ import annotations

from collections.abc import Mapping

from herdsman.engine.semantics.arith import AnyValue, is_known
from herdsman.engine.semantics.state import Emit, Read, Step, ThreadState
from herdsman.engine.semantics.step import ThreadCode
from herdsman.graphs.events import Event, with_value
from herdsman.graphs.shapes import ShapeTable
from herdsman.litmus.base.ir import Value

#: How many locations a prefix remembers its latest write to (:attr:`PathNode.writes`).
LATEST_WRITES = 4

Writes = tuple[tuple[str, AnyValue], ...]


class PathNode:
    """One prefix of one thread (see the module docstring): ``depth`` events, of shape
    ``shape``, leading to ``state``."""

    __slots__ = (
        "tree",
        "state",
        "depth",
        "shape",
        "came",
        "_step",
        "_next",
        "_children",
        "_next_shape",
        "_completion",
        "writes",
    )

    def __init__(
        self,
        tree: PathTree,
        state: ThreadState,
        depth: int,
        shape: int,
        came: Event | None,
        writes: Writes = (),
    ) -> None:
        self.tree = tree
        self.state = state
        self.depth = depth
        self.shape = shape
        self.came = came  # the last event of the prefix (a read with its value)
        self._step: Step | None = None
        self._next: PathNode | None = None
        self._children: dict[AnyValue, PathNode] | None = None
        self._next_shape = -1
        self._completion = -1
        #: the values of the prefix's latest writes, to a few locations, latest first
        self.writes = writes

    @property
    def step(self) -> Step:
        """What the thread does next."""
        s = self._step
        if s is None:
            s = self._step = self.tree.code.step(self.state)
        return s

    def after(self) -> PathNode:
        """The node after the next event (an :class:`Emit`)."""
        nxt = self._next
        if nxt is None:
            s = self.step
            assert isinstance(s, Emit)
            nxt = self._next = self.tree.node(s.after, self, s.event)
        return nxt

    def child(self, value: AnyValue) -> PathNode:
        """The node after the next event (a :class:`Read`) reads ``value``."""
        kids = self._children
        if kids is None:
            kids = self._children = {}
        got = kids.get(value)
        if got is None:
            s = self.step
            assert isinstance(s, Read)
            st = self.tree.code.after_read(s, value)
            ev = with_value(s.event, value)
            got = kids[value] = self.tree.node(st, self, ev)
        return got

    def next_shape(self) -> int:
        """The shape of this prefix followed by its next event."""
        got = self._next_shape
        if got < 0:
            shapes = self.tree.shapes
            assert shapes is not None
            s = self.step
            assert isinstance(s, (Emit, Read))
            got = self._next_shape = shapes.intern(self.shape, s.event)
        return got

    def completion(self, limit: int = -1) -> int:
        """The shape of one complete path through this prefix: the thread run on, each
        read taking the value the thread last wrote there (among its latest writes),
        else the first value read there so far, else its location's initial value (a
        guess: any complete path will do, but one the exploration then follows is not
        walked again), until it finishes or stops (-1 when it runs on past ``limit`` events: a
        thread whose loops the program bounds itself may loop for ever on those
        values)."""
        got = self._completion
        if got >= 0:
            return got
        walked = []
        node = self
        while node._completion < 0:
            if 0 <= limit < node.depth:
                return -1
            walked.append(node)
            s = node.step
            if type(s) is Emit:
                node = node.after()
            elif type(s) is Read:  # its own write, a value some graph read, the initial one
                loc = s.event.loc
                own = [v for w, v in node.writes if w == loc]
                kids = node._children
                if own:
                    node = node.child(own[0])
                elif kids:
                    node = next(iter(kids.values()))
                else:
                    node = node.child(0 if loc is None else self.tree.initial.get(loc, 0))
            else:
                node._completion = node.shape
        for n in walked:
            n._completion = node._completion
        return node._completion

    def event(self, value: AnyValue | None = None) -> Event:
        """The next event (a read with ``value``)."""
        s = self.step
        assert isinstance(s, (Emit, Read))
        return s.event if value is None else s.event._replace(value=value)


class PathTree:
    """The tree of the prefixes of the thread ``code`` (a compiled thread), with their
    shapes interned in ``shapes`` when given; ``initial`` gives the initial value of
    the locations (completions read them).  Its step errors are
    :class:`~engine.semantics.step.StepError`."""

    def __init__(
        self,
        code: ThreadCode,
        shapes: ShapeTable | None = None,
        initial: Mapping[str, Value] | None = None,
    ) -> None:
        self.code = code
        self.tid = code.tid
        self.shapes = shapes
        self.initial = initial or {}
        self.size = 0

    def root(self) -> PathNode:
        """A new root: the empty prefix (the tree does not keep its nodes: whoever holds
        the root does, so a tree no one uses is freed at once, without cycles)."""
        self.size += 1
        return PathNode(self, self.code.start(), 0, 0, None)

    def node(self, st: ThreadState, prev: PathNode, ev: Event) -> PathNode:
        """The node of the prefix ``prev`` followed by ``ev`` (with its value), in
        state ``st``."""
        shape = self.shapes.intern(prev.shape, ev) if self.shapes is not None else 0
        self.size += 1
        writes = prev.writes
        if ev.kind == "W" and ev.loc is not None and is_known(ev.value):
            w = ev.loc
            writes = ((w, ev.value), *[x for x in writes if x[0] != w][: LATEST_WRITES - 1])
        return PathNode(self, st, prev.depth + 1, shape, ev, writes)
