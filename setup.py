"""The optional compiled parts: the relation algebra's kernel (graphs/_relalg.c) and
TruSt's exploration loop (engine/trust/_core.c).

Everything else is configured in pyproject.toml.  Both extensions are optional: without a
C compiler (or on a big-endian host) the build skips them; graphs/relalg.py then uses its
pure-Python operators and TruSt its Python explorer, which give identical answers.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "herdsman.graphs._relalg",
            sources=["graphs/_relalg.c"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(
            "herdsman.engine.trust._core",
            sources=["engine/trust/_core.c"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(  # the same for graphs of up to 128 events (a compiler with __int128)
            "herdsman.engine.trust._core128",
            sources=["engine/trust/_core.c"],
            define_macros=[("CORE_WIDE", "1")],
            optional=True,
            extra_compile_args=["-O2"],
        ),
    ]
)
