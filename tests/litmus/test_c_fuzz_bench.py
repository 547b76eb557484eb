"""bench/fuzz_c.py on a sample: mutated C programs and C litmus tests give results or one
clean error line, never a traceback or an internal error."""

from __future__ import annotations

from support.bench import load_bench


def _bench():
    return load_bench("fuzz_c")


FUZZ = _bench()


def test_fuzz_sample_breaks_no_rule(tmp_path, capsys):
    assert FUZZ.main(["--count", "200", "--seed", "3", "--keep", str(tmp_path)]) == 0, (
        capsys.readouterr().out
    )
    out = capsys.readouterr().out
    assert "200 mutated C files" in out and "0 broke the rules" in out
    assert not list(tmp_path.iterdir())  # nothing kept when nothing failed


def test_mutants_are_deterministic_varied_and_mostly_new():
    a = FUZZ.cases(300, 7)
    assert a == FUZZ.cases(300, 7)
    assert {c.kind for c in a} == {"program", "litmus"}
    assert {m for c in a for m in c.mutations} == set(FUZZ.MUTATIONS)
    originals = {text for _, _, text in FUZZ.seeds()}
    assert sum(c.text not in originals for c in a) >= 280
    assert all("heavy" not in c.mutations for c in a)
    assert any("heavy" in c.mutations for c in FUZZ.cases(100, 7, heavy=True))


def test_seeds_cover_programs_and_litmus_tests():
    kinds = [kind for _, kind, _ in FUZZ.seeds()]
    assert kinds.count("program") >= len(FUZZ.SEEDS) and kinds.count("litmus") >= 15


def test_token_mutations_keep_the_rest_of_the_text():
    text = "int x; /* c */ void f(void) { x = 1; }"
    assert "".join(FUZZ.tokens(text)) == text
    rnd = FUZZ.random.Random(0)
    assert FUZZ.MUTATIONS["swap"](text, rnd) != text
    assert len(FUZZ.MUTATIONS["delete"](text, rnd)) < len(text)
    inserted = FUZZ.MUTATIONS["statement"](text, rnd)
    assert any(s in inserted for s in FUZZ.STATEMENTS)


def test_fuzz_judge_catches_what_it_must():
    judge = FUZZ.problem
    ok = (0, 3, 42)
    assert judge("f.c", 0, "No errors were detected.\n", "", ok) is None
    assert judge("f.c", 42, "", "", ok) is None
    assert judge("f.c", 2, "", "f.c:3:4: error: unknown function 'foo'\n", ok) is None
    assert judge("f.c", 2, "", "g.h:3:4: error: syntax error\n", ok) is not None
    assert judge("f.c", 2, "", "f.c:3:4: error: x\nf.c:5:1: error: y\n", ok) is not None
    assert judge("f.c", 2, "", "", ok) is not None
    assert judge("f.c", 2, "", "herdsman verify: error: internal error (X)\n", ok) == (
        "internal error"
    )
    assert judge("f.c", 0, "Traceback (most recent call last):\n", "", ok) == "internal error"
    assert judge("f.litmus", 42, "", "", (0, 3)) == "exit status 42"
    # README: an engine's refusal of a model points at the model, naming the program
    refused = "rc11:0:0: error: the operational engine runs ...; model rc11 is none of them"
    assert judge("f.c", 2, "", f"{refused} (for f.c)\n", ok) is None
    assert judge("f.c", 2, "", f"{refused} (for g.c)\n", ok) is not None
    assert judge("f.c", 2, "", "bogus:0:0: error: x (for f.c)\n", ok) is not None


def test_programs_run_under_every_c_model_with_verify_flags():
    drawn = [c.options for c in FUZZ.cases(300, 5) if c.kind == "program"]
    words = {w for options in drawn for w in options}
    assert {"rc11", "ra", "tso", "sc", "--unroll", "--no-genmc-variants"} <= words
    assert any("--model" not in options for options in drawn)  # verify's default model
