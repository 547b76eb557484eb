"""What the workbench accepts: bundled examples only (never a path outside them), the
built-in models or cat text, herdsman's engines, limits within the server's; a C program
told from a litmus test."""

from __future__ import annotations

import pytest

from herdsman.herd_compat.serve.examples import (
    NotAnExample,
    example_text,
    list_examples,
    model_text,
    resolve_example,
)
from herdsman.herd_compat.serve.request import (
    MAX_TIME_LIMIT,
    RequestError,
    detect_kind,
    parse_request,
)


def test_the_examples_are_litmus_tests_and_programs() -> None:
    kinds = {e.path: e.kind for e in list_examples()}
    assert kinds["ppc/MP+lwsync+addr.litmus"] == "litmus"
    assert kinds["programs/peterson.c"] == "program"
    assert kinds["c/SB.litmus"] == "litmus"
    assert all(not p.endswith(".md") for p in kinds)
    assert example_text("x86/SB.litmus").startswith("X86 SB")


@pytest.mark.parametrize(
    "path",
    [
        "../README.md",
        "/etc/passwd",
        "ppc/../../cat/api.py",
        "ppc/../ppc/MP.litmus",
        "ppc\\MP.litmus",
        "ppc/nope.litmus",
        "README.md",
        "ppc//MP.litmus",
        "",
        "programs/README.md",
    ],
)
def test_paths_outside_the_examples_are_refused(path: str) -> None:
    with pytest.raises(NotAnExample, match="not a bundled example"):
        resolve_example(path)


def test_built_in_models_only() -> None:
    assert "acyclic" in model_text("sc")
    with pytest.raises(NotAnExample):
        model_text("../../etc/passwd")


def test_a_permalinks_request() -> None:
    req = parse_request({"example": "ppc/MP+lwsync+addr.litmus", "model": "power"})
    assert (req.task, req.kind, req.example, req.model.name) == (
        "run",
        "litmus",
        "ppc/MP+lwsync+addr.litmus",
        "power",
    )
    req = parse_request({"example": "programs/peterson.c", "model": "tso"})
    assert req.kind == "program"


def test_pasted_text_and_cat() -> None:
    req = parse_request({"text": "X86 T\n{}\n P0 ;\n MOV [x],$1 ;\nexists (x=1)\n"})
    assert req.kind == "litmus" and req.example is None
    req = parse_request(
        {"text": "int main() { return 0; }", "model": "custom", "cat": "acyclic po"}
    )
    assert req.kind == "program" and req.model.cat == "acyclic po"


@pytest.mark.parametrize(
    "doc, needle",
    [
        ({}, "give a bundled example or the text"),
        ({"example": "x86/SB.litmus", "text": "X86 T"}, "give a bundled example or the text"),
        ({"example": "../secret.litmus"}, "not a bundled example"),
        ({"example": "x86/SB.litmus", "model": "herd.cat"}, "not a built-in model"),
        ({"example": "x86/SB.litmus", "model": "custom"}, "needs its cat text"),
        ({"example": "x86/SB.litmus", "engine": "bash"}, "engine: 'bash' is not one of"),
        ({"example": "x86/SB.litmus", "timeout": 1e6}, f"and {MAX_TIME_LIMIT:g}"),
        ({"example": "x86/SB.litmus", "memory": "lots"}, "expected a number"),
        ({"example": "x86/SB.litmus", "task": "shell"}, "task: 'shell' is not one of"),
        ({"example": "programs/peterson.c", "task": "explain"}, "explain takes a litmus test"),
        ({"task": "diff", "model": "tso", "model_b": "sc", "tests": ["../x"]}, "not a bundled"),
        (
            {"task": "diff", "model": "tso", "model_b": "sc", "tests": ["programs/peterson.c"]},
            "on litmus tests",
        ),
        ({"task": "diff", "model": "tso", "tests": ["x86"]}, "choose both models"),
        ([1, 2], "expected a JSON object"),
    ],
)
def test_bad_requests_are_one_line(doc: object, needle: str) -> None:
    with pytest.raises(RequestError, match=needle.replace("(", r"\(").replace(".", r"\.")) as e:
        parse_request(doc)
    assert "\n" not in str(e.value)


def test_a_diff_over_folders() -> None:
    req = parse_request(
        {"task": "diff", "model": "tso", "model_b": "sc", "tests": "x86,ppc/MP.litmus"}
    )
    assert "x86/SB.litmus" in req.tests and "ppc/MP.litmus" in req.tests
    assert all(t.endswith(".litmus") for t in req.tests)


@pytest.mark.parametrize(
    "text, kind",
    [
        ("#include <pthread.h>\nint x;\n", "program"),
        ("/* c */\nint main(void) { return 0; }\n", "program"),
        ("C SB\n{ }\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n", "litmus"),
        ("PPC MP\n{}\n P0 ;\n li r1,1 ;\nexists (0:r1=1)\n", "litmus"),
    ],
)
def test_programs_are_told_from_litmus_tests(text: str, kind: str) -> None:
    assert detect_kind(text) == kind
