"""``herdsman verify`` on heap errors as GenMC reports them: an access that does not happen
before the free of its allocation (whichever thread frees), an access outside a heap
allocation's size, with GenMC's ``Error: ...!`` heading; and the same programs done
right, which are safe."""

from __future__ import annotations

import pytest

from herdsman.herd_compat.cli.main import main

HEAD = "#include <stdlib.h>\n#include <pthread.h>\nint *p;\n"

# t1 frees what t2 reads: no order between them
FREE_RACES_READ = (
    HEAD + "void *t1(void *a) { free(p); return 0; }\n"
    "void *t2(void *a) { int v = *p; return 0; }\n"
    "int main() {\n  pthread_t a, b;\n  p = malloc(sizeof(int));\n"
    "  pthread_create(&a, 0, t1, 0);\n  pthread_create(&b, 0, t2, 0);\n"
    "  pthread_join(a, 0);\n  pthread_join(b, 0);\n  return 0;\n}\n"
)
# the reader is joined before main frees: safe
READ_THEN_FREE = (
    HEAD + "void *t2(void *a) { int v = *p; return 0; }\n"
    "int main() {\n  pthread_t b;\n  p = malloc(sizeof(int));\n"
    "  pthread_create(&b, 0, t2, 0);\n  pthread_join(b, 0);\n  free(p);\n  return 0;\n}\n"
)
# main writes after joining the thread that freed
FREE_THEN_WRITE = (
    HEAD + "void *t1(void *a) { free(p); return 0; }\n"
    "int main() {\n  pthread_t b;\n  p = malloc(sizeof(int));\n"
    "  pthread_create(&b, 0, t1, 0);\n  pthread_join(b, 0);\n  *p = 2;\n  return 0;\n}\n"
)
# the reader waits (spin) for a flag the freeing thread sets after its free
FLAGGED = (
    HEAD + "int done;\n"
    "void *t1(void *a) { free(p); done = 1; return 0; }\n"
    "void *t2(void *a) { if (done) { int v = *p; } return 0; }\n"
    "int main() {\n  pthread_t a, b;\n  p = malloc(sizeof(int));\n"
    "  pthread_create(&a, 0, t1, 0);\n  pthread_create(&b, 0, t2, 0);\n  return 0;\n}\n"
)
MAIN = "#include <stdlib.h>\nint main() {\n"
OUTSIDE = MAIN + "  int *q = malloc(2 * sizeof(int));\n  q[2] = 3;\n  return 0;\n}\n"
CALLOC_OUTSIDE = MAIN + "  int *q = calloc(3, sizeof(int));\n  return q[-1];\n}\n"
INSIDE = (
    "#include <stdlib.h>\nstruct node { int v; struct node *next; };\n"
    "int main() {\n  struct node *n = malloc(sizeof(struct node));\n  n->v = 1;\n"
    "  n->next = 0;\n  int *q = calloc(3, sizeof(int));\n  q[2] = n->v;\n"
    "  free(n);\n  free(q);\n  return 0;\n}\n"
)
FREED = "Error: Attempt to access freed memory!"
OUTSIDE_ERR = "Error: Attempt to access non-allocated memory!"


@pytest.mark.parametrize(
    ("text", "heading", "where"),
    [
        (FREE_RACES_READ, FREED, "In thread 2, line 5: int v = *p"),
        (FREE_THEN_WRITE, FREED, "In thread 0, line 10: *p = 2"),
        (FLAGGED, FREED, "In thread 2, line 6"),
        (OUTSIDE, OUTSIDE_ERR, "In thread 0, line 4: q[2] = 3"),
        (CALLOC_OUTSIDE, OUTSIDE_ERR, "In thread 0, line 4"),
        (READ_THEN_FREE, None, None),
        (INSIDE, None, None),
    ],
)
def test_heap_errors_as_genmc(capsys, tmp_path, text, heading, where) -> None:
    prog = tmp_path / "heap.c"
    prog.write_text(text)
    rc = main(["verify", "--model", "sc", str(prog)])
    out = capsys.readouterr().out.splitlines()
    if heading is None:
        assert rc == 0 and out[0] == "No errors were detected.", out
    else:
        assert rc == 42, out
        assert out[0] == heading and out[1].startswith(where), out


def test_assertion_heading_as_genmc(capsys, tmp_path) -> None:
    prog = tmp_path / "a.c"
    prog.write_text("#include <assert.h>\nint x;\nint main() { assert(x == 1); return 0; }\n")
    assert main(["verify", str(prog)]) == 42
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == [
        "Error: Safety violation!",
        "Assertion violation: x == 1  (thread 0, line 3)",
    ]
