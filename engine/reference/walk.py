"""The reference search's depth-first walk: steps whose children of a partial candidate
are those their choice gives, walked with one iterator per step on a list, not one Python
frame per choice (a thread of thousands of events is no deeper for Python than one of
two); the step choosing a location's co order (:func:`co_step`); and, for a progress
reporter, the tracker of the search's estimated size."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

from herdsman.engine.outcome import OutcomeBuilder
from herdsman.engine.progress import ProgressReporter, TreeEstimate
from herdsman.engine.reference.tables import Tables
from herdsman.graphs.relalg import bits

#: A partial candidate: rf, co, the possible thread executions (one mask per thread),
#: the value constraints pending, and the final write chosen per location.
State = tuple[int, int, tuple[int, ...], tuple[tuple[int, int], ...], tuple[int, ...]]
#: A step: the partial candidates its choice gives from one (called with its fields).
Children = Callable[..., Iterator[State]]
#: What a complete candidate is given to (called with its fields).
Leaf = Callable[..., None]

#: The choices of a combination whose options a progress tracker follows.
TRACKED = 8


class Tracker:
    """The search's size, estimated as it goes, for a progress reporter: the tree of the
    combinations of shapes and, in each, of the first :data:`TRACKED` choices (deeper
    choices are the tracked ones' subtrees).  Its size counts candidates."""

    def __init__(self, reporter: ProgressReporter, tally: OutcomeBuilder) -> None:
        self.reporter = reporter
        self.tally = tally
        self.tree = TreeEstimate(self.candidates)

    def candidates(self) -> int:
        return self.tally.stats.candidates

    def report(self) -> None:
        done = self.tally.executions_so_far()
        total = self.tree.total()
        judged = self.tally.stats.candidates
        if total is not None and judged:
            total *= done / judged
        self.reporter.update(done, total)


def walk(children: list[Children], root: State, leaf: Leaf) -> None:
    """Every complete candidate below ``root`` (one choice per step), depth first, to
    ``leaf``."""
    depth = len(children)
    if not depth:
        leaf(*root)
        return
    below = depth - 1
    last = children[below]
    if not below:
        for complete in last(*root):
            leaf(*complete)
        return
    # the iterator of the deepest step walked (step i) above the last one, those of the
    # steps above it; the last step's children go to the leaf at once
    below -= 1
    it = children[0](*root)
    above: list[Iterator[State]] = []
    i = 0
    while True:
        state = next(it, None)
        if state is None:
            if not i:
                return
            it = above.pop()
            i -= 1
        elif i == below:
            for complete in last(*state):
                leaf(*complete)
        else:
            above.append(it)
            i += 1
            it = children[i](*state)


def walk_tracked(
    children: list[Children],
    root: State,
    leaf: Leaf,
    tree: TreeEstimate,
    options: list[int | None],
    option: Callable[[int, State], int],
) -> None:
    """:func:`walk` telling ``tree`` the number of options of each step ``i`` it follows
    (``options[i]``, None for one it does not) and which one each child took
    (``option(i, child)``)."""
    depth = len(children)
    if not depth:
        leaf(*root)
        return
    stack: list[Iterator[State]] = []

    def enter(i: int, state: State) -> None:
        n = options[i]
        if n is not None:
            tree.enter(n)
        stack.append(children[i](*state))

    enter(0, root)
    while stack:
        i = len(stack) - 1
        state = next(stack[i], None)
        if state is None:
            stack.pop()
            if options[i] is not None:
                tree.leave()
            continue
        if options[i] is not None:
            tree.child(option(i, state))
        if i == depth - 1:
            leaf(*state)
        else:
            enter(i + 1, state)


# With a progress reporter, the first steps are wrapped: a node tracker around a step
# (its options), a child tracker around what it calls next (which option it took).
def options_of(tables: Tables, kind: str, arg: int) -> int:
    """How many options step ``kind`` of ``arg`` has (some may be cut at once)."""
    if kind == "rf":
        return len(tables.cands[arg])
    if kind == "fw":
        return 1 + len(tables.loc_writes[arg])
    return math.factorial(len(tables.loc_writes[arg]))


def option_taken(
    tables: Tables, kind: str, arg: int, rf: int, co: int, finals: tuple[int, ...]
) -> int:
    """Which option of step ``kind`` of ``arg`` candidate ``rf``, ``co``, ``finals`` took
    (a co order: its rank among the orders, placing writes lowest first)."""
    if kind == "rf":
        return next(i for i, c in enumerate(tables.cands[arg]) if rf & c[1])
    ws = tables.loc_writes[arg]
    if kind == "fw":
        return [tables.loc_init[arg], *ws].index(finals[arg])
    cap = tables.U.cap
    mask = sum(1 << w for w in ws)
    # the j-th write placed is co-before the n-1-j writes placed after it
    order = sorted(ws, key=lambda w: -((co >> (w * cap)) & mask).bit_count())
    rest = sorted(ws)
    rank = 0
    for w in order:
        rank += rest.index(w) * math.factorial(len(rest) - 1)
        rest.remove(w)
    return rank


def co_step(
    li: int,
    writes: list[int],
    init: int,
    cap: int,
    violates: Callable[[int, int], bool],
    check: bool,
    last: bool,
) -> Children:
    """The step choosing the co order of location ``li`` (its ``writes``, ``init`` its
    initial write; relations over ``cap`` events) one write at a time: each placed write
    is co-before every write still to place, so a prefix is already part of co.
    ``last``: no check once the order is complete (the leaf checks it). The orders are
    walked depth first, with lists, not Python frames, for the places."""
    ws = 0
    for w in writes:
        ws |= 1 << w
    start = ws << (init * cap)
    if len(writes) == 2:  # two orders, each one placement
        a, b = writes
        orders = ((1 << (a * cap + b), b), (1 << (b * cap + a), a))
        check = check and not last  # (a complete order: the leaf checks it)

        def two(rf, co, masks, pending, finals) -> Iterator[State]:
            co |= start
            for edge, w in orders:  # w: the write placed last
                if check and violates(rf, co | edge):
                    continue
                yield (rf, co | edge, masks, pending, finals[:li] + (w,) + finals[li + 1 :])

        return two

    def complete(rf, co, rest, masks, pending, finals) -> State:
        if rest:  # the one write left is co-last: forced
            w = rest.bit_length() - 1
            finals = finals[:li] + (w,) + finals[li + 1 :]
        return (rf, co, masks, pending, finals)

    def children(rf, co, masks, pending, finals) -> Iterator[State]:
        co |= start
        if ws & (ws - 1) == 0:  # zero or one write: one order
            yield complete(rf, co, ws, masks, pending, finals)
            return
        # per place: the writes left, those still to try there, the one placed (its
        # row is in co, taken back by xor: one co alive, not one per place)
        rests, tries, placed = [ws], [bits(ws)], [-1]
        while rests:
            rest = rests[-1]
            p = placed[-1]
            if p >= 0:
                co ^= (rest & ~(1 << p)) << (p * cap)
                placed[-1] = -1
            w = next(tries[-1], None)
            if w is None:
                rests.pop()
                tries.pop()
                placed.pop()
                continue
            rest2 = rest & ~(1 << w)
            co2 = co | (rest2 << (w * cap))
            forced = rest2 & (rest2 - 1) == 0
            if last and forced:
                pass  # the order is complete and nothing follows
            elif check and violates(rf, co2):
                continue
            if forced:
                yield complete(rf, co2, rest2, masks, pending, finals)
                continue
            co = co2
            placed[-1] = w
            rests.append(rest2)
            tries.append(bits(rest2))
            placed.append(-1)

    return children
