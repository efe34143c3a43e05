"""The frontends, one per language, in one registry: engine, discovery and linker ask it, never a language by name.

Each language is a sub-package (`java/`, `python/`, `go/`) whose `__init__` holds its `Frontend` subclass
(`rmqlint.frontends.base`); what languages share sits beside them (`base`, and `spring` and `spring_xml`, the Spring
configuration files and XML bean definitions, frontends of their own). A language's package imports the shared
modules, never another language's package. Adding a language is one sub-package and one line below.
"""

from __future__ import annotations

from typing import Optional

from rmqlint.frontends.base import ConstantMatch, Frontend, SourceFiles
from rmqlint.frontends.go import GoFrontend
from rmqlint.frontends.java import JavaFrontend
from rmqlint.frontends.python import PythonFrontend
from rmqlint.frontends.spring import SpringFrontend
from rmqlint.frontends.spring_xml import SpringXmlFrontend

FRONTENDS: tuple[Frontend, ...] = (JavaFrontend(), PythonFrontend(), GoFrontend(), SpringFrontend(),
                                   SpringXmlFrontend())

_BY_NAME = {f.name: f for f in FRONTENDS}
_BY_LANGUAGE = {language: f for f in FRONTENDS for language in f.languages}


def register(frontend: Frontend) -> None:
    """Add a frontend that lives outside this package (a plug-in, a test); it claims files before the built-in
    ones. Its name and languages must be new."""
    global FRONTENDS
    if frontend.name in _BY_NAME or any(language in _BY_LANGUAGE for language in frontend.languages):
        raise ValueError(f"a frontend named {frontend.name!r} or reading {frontend.languages} is registered already")
    FRONTENDS = (frontend, *FRONTENDS)
    _BY_NAME[frontend.name] = frontend
    _BY_LANGUAGE.update({language: frontend for language in frontend.languages})


def unregister(name: str) -> None:
    """Remove a frontend `register` added."""
    global FRONTENDS
    frontend = _BY_NAME.pop(name)
    FRONTENDS = tuple(f for f in FRONTENDS if f is not frontend)
    for language in frontend.languages:
        _BY_LANGUAGE.pop(language, None)


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


__all__ = ["FRONTENDS", "ConstantMatch", "Frontend", "SourceFiles", "frontend_for", "frontend_named", "frontend_of",
           "register", "unregister"]
