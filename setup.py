"""Build hook for the auditor's optional native fast path (audit/native/csrc/, docs/performance.md).

Everything else is declared in pyproject.toml. The extension is optional: where no C
compiler is available the build goes on without it and the auditor runs in pure
Python (same reports, slower; ``fairplay --version`` says which).
"""

from glob import glob

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "audit.native._fastaudit",
            sorted(glob("audit/native/csrc/*.c")),
            depends=["audit/native/csrc/fastaudit.h"],
            # Bit-identical floating point with the Python code it mirrors: no fused
            # multiply-add contraction, no unsafe math. Only PyInit is exported.
            extra_compile_args=[
                "-O2",
                "-ffp-contract=off",
                "-fno-fast-math",
                "-fvisibility=hidden",
            ],
            optional=True,
        ),
        # The double-dummy solver (audit/analysis/, docs/analysis.md): integer search
        # only, so plain -O2; also optional (the pure-Python solver gives the same values).
        Extension(
            "audit.native._ddsolve",
            sorted(glob("audit/native/ddsrc/*.c")),
            extra_compile_args=["-O2", "-fvisibility=hidden"],
            optional=True,
        ),
    ]
)
