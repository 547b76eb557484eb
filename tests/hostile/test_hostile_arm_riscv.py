"""Malformed ARM, RISC-V and X86_64 tests, instructions herdsman does not model, and
models using what is not there: one clean error line each, exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import one_error

ARM_MP = """ARM MP
{ 0:R1=x; 0:R3=y; 1:R1=y; 1:R3=x; }
 P0          | P1          ;
 MOV R0,#1   | LDR R0,[R1] ;
 STR R0,[R1] | {CELL} ;
 STR R0,[R3] | LDR R2,[R3] ;
exists (1:R0=1 /\\ 1:R2=0)
"""

RISCV_MP = """RISCV MP
{ 0:x6=x; 0:x8=y; 1:x6=y; 1:x8=x; }
 P0          | P1          ;
 ori x5,x0,1 | lw x5,0(x6) ;
 sw x5,0(x6) | {CELL} ;
 sw x5,0(x8) | lw x7,0(x8) ;
exists (1:x5=1 /\\ 1:x7=0)
"""

X86_64_MP = """X86_64 MP
{ x=0; y=0; }
 P0          | P1            ;
 movq $1,(x) | movq (y),%rax ;
 movq $1,(y) | {CELL} ;
exists (1:rax=1)
"""

CASES = [
    ("arm-unknown", ARM_MP, "FROB R0", "unknown ARM instruction 'FROB'"),
    ("arm-cond", ARM_MP, "LDRNE R0,[R1]", "unsupported ARM instruction 'LDRNE'"),
    ("arm-bx", ARM_MP, "BX R1", "unsupported ARM instruction 'BX' (indirect branch)"),
    ("arm-simd", ARM_MP, "SEL R0,R1,R2", "unsupported ARM instruction 'SEL'"),
    ("arm-reg", ARM_MP, "LDR R0,[R99]", "expected a base register"),
    ("arm-bracket", ARM_MP, "LDR R0,[R1", "missing ']'"),
    ("arm-operands", ARM_MP, "ADD R0,R1", "missing operand for 'ADD'"),
    ("arm-label", ARM_MP, "BNE nowhere", "branch to label 'nowhere'"),
    ("riscv-unknown", RISCV_MP, "frob x5", "unknown RISC-V instruction 'frob'"),
    ("riscv-unimplemented", RISCV_MP, "srai x5,x6,1", "herd does not implement it"),
    ("riscv-amo", RISCV_MP, "amominu.w x5,x6,(x7)", "unsupported RISC-V instruction"),
    ("riscv-fence", RISCV_MP, "fence rw,q", "bad fence set 'q'"),
    ("riscv-mem", RISCV_MP, "lw x5,0(x6", "malformed memory operand"),
    ("riscv-lr-offset", RISCV_MP, "lr.w x5,8(x6)", "without offset"),
    ("x86_64-cmpxchg", X86_64_MP, "cmpxchgq %rbx,(x)", "its flags are not modelled"),
    ("x86_64-mem2mem", X86_64_MP, "movq (x),(y)", "no memory-to-memory move"),
    ("x86_64-lock", X86_64_MP, "lock; movq $1,(x)", "illegal lock prefix"),
    ("x86_64-ret", X86_64_MP, "ret", "'ret' (a return: only with -variant telechat)"),
]


@pytest.mark.parametrize(("name", "template", "cell", "words"), CASES, ids=[c[0] for c in CASES])
def test_one_clean_error(
    name: str, template: str, cell: str, words: str, tmp_path: Path, capsys
) -> None:
    p = tmp_path / f"{name}.litmus"
    p.write_text(template.replace("{CELL}", cell))
    err = one_error(capsys, ["herd7", str(p)])
    assert words in err and err.startswith(f"{p}:5:"), err


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("ARM T\n{ 0:R99=x; }\n P0 ;\n NOP ;\nexists (0:R0=0)\n", "bad ARM register 'R99'"),
        ("RISCV T\n{ 0:s10=x; }\n P0 ;\n nop ;\nexists (0:x5=0)\n", "bad RISCV register"),
        ("X86_64 T\n{ 0:eax=1; }\n P0 ;\n NOP ;\nexists (0:rax=0)\n", "bad X86_64 register"),
        ("RISCV T\n{ }\n P0 ;\n nop ;\nexists (1:x5=0)\n", "thread 1 does not exist"),
    ],
)
def test_bad_state_registers(text: str, words: str, tmp_path: Path, capsys) -> None:
    p = tmp_path / "T.litmus"
    p.write_text(text)
    assert words in one_error(capsys, ["herd7", str(p)])


def test_model_using_another_architectures_names(tmp_path: Path, capsys) -> None:
    """riscv-defs.cat's fence sets under an ARM model: an unknown name, one line."""
    m = tmp_path / "m.cat"
    m.write_text("ARM\nlet f = fencerel(Fence.r.r)\nacyclic po | f as x\n")
    t = tmp_path / "T.litmus"
    t.write_text("ARM T\n{ }\n P0 ;\n DMB ;\nexists (0:R0=0)\n")
    from herdsman.herd_compat.cli.main import main

    assert main(["herd7", "-model", str(m), str(t)]) == 2
    err = capsys.readouterr().err.splitlines()  # a cat error: its line, the source, a caret
    assert err[0] == f"{m}:2:18: error: unknown name 'Fence.r.r'" and len(err) == 3
