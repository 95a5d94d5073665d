"""Build hook for the auditor's optional native fast path (audit/_fastaudit.c).

Everything else is declared in pyproject.toml. The extension is optional: where no C
compiler is available the build goes on without it and the auditor runs in pure
Python (same reports, slower; ``fairplay audit --version-info`` says which).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "audit._fastaudit",
            ["audit/_fastaudit.c"],
            # Bit-identical floating point with the Python code it mirrors: no fused
            # multiply-add contraction, no unsafe math.
            extra_compile_args=["-O2", "-ffp-contract=off", "-fno-fast-math"],
            optional=True,
        )
    ]
)
