"""The parse cache: a cat file parsed once is read back by later runs, and only when it
is the same file (path, bytes, parser) unpickled whole."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from herdsman.cat import parsecache
from herdsman.cat import parser as P
from herdsman.cat.errors import ModelInputError

MODEL = '"tiny"\nlet r = po | rf\nacyclic r as cyc\n'


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HERDSMAN_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "cat"


def _parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record each real parse from now on."""
    calls: list[str] = []
    real = P.parse_text

    def counted(text: str, path: str = "<string>"):
        calls.append(path)
        return real(text, path)

    monkeypatch.setattr(P, "parse_text", counted)
    return calls


def test_second_parse_is_read_back(cache: Path, tmp_path: Path, monkeypatch) -> None:
    f = tmp_path / "tiny.cat"
    f.write_text(MODEL)
    calls = _parses(monkeypatch)
    first = P.parse_file(f)
    again = P.parse_file(f)
    assert calls == [str(f)]  # parsed once, read back once
    assert repr(again) == repr(first) and again.source == MODEL
    assert len(list(cache.glob("*.pickle"))) == 1


def test_other_bytes_or_path_miss(cache: Path, tmp_path: Path, monkeypatch) -> None:
    f = tmp_path / "tiny.cat"
    f.write_text(MODEL)
    calls = _parses(monkeypatch)
    P.parse_file(f)
    f.write_text(MODEL.replace("po | rf", "po"))  # edited: parsed again
    assert "po | rf" not in P.parse_file(f).source
    g = tmp_path / "copy.cat"  # same bytes elsewhere: its positions name it
    g.write_text(MODEL)
    assert P.parse_file(g).path == str(g)
    assert calls == [str(f), str(f), str(g)]


def test_damaged_entries_are_misses(cache: Path, tmp_path: Path, monkeypatch) -> None:
    f = tmp_path / "tiny.cat"
    f.write_text(MODEL)
    want = repr(P.parse_file(f))
    (entry,) = cache.glob("*.pickle")
    calls = _parses(monkeypatch)
    for junk in (b"", b"not a pickle", entry.read_bytes()[:20], b"\x80\x05K\x01."):
        entry.write_bytes(junk)  # truncated, foreign, or another value (the int 1)
        assert repr(P.parse_file(f)) == want
    assert len(calls) == 4


def test_errors_are_not_kept(cache: Path, tmp_path: Path) -> None:
    f = tmp_path / "bad.cat"
    f.write_text('"bad"\nlet r = po |\n')
    for _ in range(2):
        with pytest.raises(ModelInputError):
            P.parse_file(f)
    assert not list(cache.glob("*.pickle"))


def test_off_and_unwritable(tmp_path: Path, monkeypatch) -> None:
    f = tmp_path / "tiny.cat"
    f.write_text(MODEL)
    monkeypatch.setenv("HERDSMAN_CACHE", "off")
    assert parsecache.cache_dir() is None
    P.parse_file(f)
    blocked = tmp_path / "file"
    blocked.write_text("")  # the cache directory cannot be made under a file
    monkeypatch.setenv("HERDSMAN_CACHE", str(blocked))
    calls = _parses(monkeypatch)
    P.parse_file(f)
    P.parse_file(f)
    assert len(calls) == 2
    monkeypatch.delenv("HERDSMAN_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert parsecache.cache_dir() == tmp_path / "xdg" / "herdsman" / "cat"


def test_room_is_made(cache: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(parsecache, "MAX_ENTRIES", 4)
    files = []
    for i in range(6):
        f = tmp_path / f"m{i}.cat"
        f.write_text(MODEL)
        P.parse_file(f)
        files.append(f)
        for k, e in enumerate(sorted(cache.glob("*.pickle"))):
            os.utime(e, (k, k))  # distinct ages, whatever the clock's resolution
    assert 2 <= len(list(cache.glob("*.pickle"))) <= 4
    calls = _parses(monkeypatch)
    P.parse_file(files[-1])  # the newest is kept
    assert calls == []


def test_builtin_texts_go_through_the_cache(cache: Path, monkeypatch) -> None:
    # herdsman's own snippets (the co probes, co0) are kept as files are: a run whose
    # models are all cached never builds the parser
    calls = _parses(monkeypatch)
    text = "let r = po | rf\n"
    first = P.parse_builtin.__wrapped__(text, "<snippet>")
    again = P.parse_builtin.__wrapped__(text, "<snippet>")
    assert calls == ["<snippet>"]
    assert repr(again) == repr(first)
    assert P.parse_builtin(text, "<snippet>") is P.parse_builtin(text, "<snippet>")
