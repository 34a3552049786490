"""Build: the engine's modules compiled with mypyc where a C compiler is present.

The metadata is in ``pyproject.toml``; this file adds the compiled modules. The modules are
listed in ``rules/engine.py`` (``COMPILED``). ``ZHUOJI_PURE=1`` at build time, or no C
compiler, builds the pure package (the ``.py`` files alone). Each compiled build records
the digest of the sources it compiled in ``rules/_engine_digest.txt``, which the package
checks at import (a stale in-place build is never used).
"""

from __future__ import annotations

import os
import runpy
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
ENGINE: dict[str, Any] = runpy.run_path(str(ROOT / "zhuoji" / "rules" / "engine.py"))


def _compiler_present() -> bool:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc) is not None


def _pure_build() -> tuple[bool, str]:
    if ENGINE["pure_requested"]():
        return True, f"{ENGINE['PURE_ENV']} is set"
    if not _compiler_present():
        return True, "no C compiler found"
    return False, ""


_PENDING = "zhuoji.rules._engine_pending"
"""The name of the stand-in extension: mypyc runs only when build_ext is used (not when
pip merely asks for the metadata), and replaces it with the compiled modules."""


class build_engine(build_ext):
    """build_ext that compiles the engine with mypyc when it runs, and records the digest
    of the compiled sources beside the modules."""

    def finalize_options(self) -> None:
        modules = self.distribution.ext_modules or []
        if any(ext.name == _PENDING for ext in modules):
            self.distribution.ext_modules = _mypycify()
        super().finalize_options()

    def run(self) -> None:
        super().run()
        if not self.extensions:
            return
        target = ROOT if self.inplace else Path(self.build_lib)
        stamp = target / "zhuoji" / "rules" / ENGINE["DIGEST_FILE"]
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(ENGINE["source_digest"](ROOT) + "\n", encoding="ascii")


def _ext_modules() -> list[Any]:
    pure, why = _pure_build()
    if pure:
        print(f"zhuoji: building the pure engine ({why})", file=sys.stderr)
        return []
    return [Extension(_PENDING, sources=[])]


def _mypycify() -> list[Any]:
    from mypyc.build import mypycify

    paths = [str(ENGINE["source_path"](m, Path("."))) for m in ENGINE["COMPILED"]]
    return mypycify(paths, opt_level=os.environ.get("MYPYC_OPT_LEVEL", "3"))


setup(ext_modules=_ext_modules(), cmdclass={"build_ext": build_engine})
