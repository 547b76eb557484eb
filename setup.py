"""The optional compiled kernel of the relation algebra (graphs/_relalg.c).

Everything else is configured in pyproject.toml.  The extension is optional: without a C
compiler (or on a big-endian host) the build skips it and graphs/relalg.py uses its
pure-Python operators, which give identical answers.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "herdsman.graphs._relalg",
            sources=["graphs/_relalg.c"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ]
)
