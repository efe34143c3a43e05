"""The frontends, one per language, in one registry: engine, discovery and linker ask it, never a language by name.

Adding a language is one module with a `Frontend` subclass (`rmqlint.frontends.base`) and one line below.
"""

from __future__ import annotations

from typing import Optional

from rmqlint.frontends.base import ConstantMatch, Frontend, SourceFiles
from rmqlint.frontends.java import JavaFrontend
from rmqlint.frontends.python import PythonFrontend
from rmqlint.frontends.spring import SpringFrontend

FRONTENDS: tuple[Frontend, ...] = (JavaFrontend(), PythonFrontend(), SpringFrontend())

_BY_NAME = {f.name: f for f in FRONTENDS}
_BY_LANGUAGE = {language: f for f in FRONTENDS for language in f.languages}


def frontend_for(path: str) -> Optional[Frontend]:
    """The frontend that reads this project file (relative, '/'-separated), or None."""
    for frontend in FRONTENDS:
        if frontend.claims(path):
            return frontend
    return None


def frontend_named(name: str) -> Frontend:
    return _BY_NAME[name]


def frontend_of(language: str) -> Optional[Frontend]:
    """The frontend that produced facts of this `FileFacts.language`."""
    return _BY_LANGUAGE.get(language)


__all__ = ["FRONTENDS", "ConstantMatch", "Frontend", "SourceFiles", "frontend_for", "frontend_named", "frontend_of"]
