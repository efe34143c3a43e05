"""Which RocketMQ client each module of a repository builds with, read from its build files.

A module is a directory with a build file: Maven `pom.xml` (`rmqplan.sources.buildfiles.maven`), Gradle
`build.gradle` / `build.gradle.kts` (`.gradle`, tree-sitter's Groovy and Kotlin grammars), a Python
`pyproject.toml` / `requirements*.txt` (`.python`, `packaging`), or a Go `go.mod` (`.gomod`). For each it finds the
RocketMQ clients:

- Java: `org.apache.rocketmq:rocketmq-client` (the remoting client, whose version decides the default client
  id), `rocketmq-spring-boot-starter` (which brings a known `rocketmq-client`, `SPRING_STARTER_CLIENT`),
  `rocketmq-client-java` and `rocketmq-v5-client-spring-boot-starter` (the 5.x gRPC client);
- Python: `rocketmq-client-python` (2.x, a binding of the C++ client) and `rocketmq-python-client` (5.x, gRPC);
- Go: `github.com/apache/rocketmq-client-go/v2` (its own rebalance code), `github.com/apache/rocketmq-client-go`
  (1.x, a binding of the C++ client) and `github.com/apache/rocketmq-clients/golang` (5.x, gRPC).

Versions are resolved or unknown with the reason, never guessed. Nothing here depends on the planner (only
`rmqplan.sources.origin`, which is standard library only), so the linter can read client versions with it too.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Optional

from rmqplan.sources.buildfiles.gomod import GO_MODULES, read_go_mod
from rmqplan.sources.buildfiles.gradle import read_gradle
from rmqplan.sources.buildfiles.maven import read_pom
from rmqplan.sources.buildfiles.module import (
    GO_CGO_MODULE,
    GO_GRPC_MODULES,
    GO_REMOTING_MODULE,
    GRPC_CLIENT,
    JAVA_ARTIFACTS,
    PYTHON_GRPC_CLIENT,
    PYTHON_PACKAGES,
    PYTHON_REMOTING_CLIENT,
    REMOTING_CLIENT,
    ROCKETMQ_GROUP,
    SPRING_STARTER,
    SPRING_STARTER_CLIENT,
    SPRING_V5_STARTER,
    SPRING_V5_STARTER_CLIENT,
    BuildIndex,
    ClientDependency,
    Module,
    concrete_version,
    directory_name,
)
from rmqplan.sources.buildfiles.python import is_production_requirements, read_pyproject, read_requirements
from rmqplan.sources.origin import Origin

__all__ = [
    "GO_CGO_MODULE", "GO_GRPC_MODULES", "GO_MODULES", "GO_REMOTING_MODULE", "read_go_mod", "GRPC_CLIENT", "JAVA_ARTIFACTS", "PYTHON_GRPC_CLIENT", "PYTHON_PACKAGES", "PYTHON_REMOTING_CLIENT",
    "REMOTING_CLIENT", "ROCKETMQ_GROUP", "SPRING_STARTER", "SPRING_STARTER_CLIENT", "SPRING_V5_STARTER",
    "SPRING_V5_STARTER_CLIENT", "BuildIndex", "ClientDependency", "Module", "concrete_version",
    "modules_with_clients", "read_build_files", "read_gradle", "read_pom", "read_pyproject", "read_requirements",
]

SKIPPED_DIRS = {"node_modules", "target", "build", "out", "dist", "__pycache__", "venv", "site-packages"}


def _module_of_directory(here: Path, names: set[str], root: Path, index: BuildIndex) -> Optional[Module]:
    if "pom.xml" in names:
        return read_pom(here / "pom.xml", index.problems)
    for script in ("build.gradle.kts", "build.gradle"):
        if script in names:
            return read_gradle(here / script, root, index.problems)
    if "go.mod" in names:
        return read_go_mod(here / "go.mod", index.problems)
    module = read_pyproject(here / "pyproject.toml", index.problems) if "pyproject.toml" in names else None
    requirements = sorted(n for n in names if is_production_requirements(n))
    if requirements:
        if module is None:
            module = Module(str(here), str(here / requirements[0]), directory_name(here), Origin(str(here)),
                            build_system="python")
        for name in requirements:
            for dep in read_requirements(here / name, index.problems):
                _add_python(module, dep)
    return module


def _add_python(module: Module, dep: ClientDependency) -> None:
    """One entry per package: a known version beats an unknown one; two different known ones are unknown (which
    file the image installs from is not in the repository's build files)."""
    for i, have in enumerate(module.dependencies):
        if have.artifact != dep.artifact:
            continue
        if have.version is None and dep.version is not None:
            module.dependencies[i] = dep
        elif have.version is not None and dep.version is not None and have.version != dep.version:
            module.dependencies[i] = ClientDependency(
                dep.artifact, None, f"{have.version} at {have.version_origin or have.origin} but {dep.version} at "
                                    f"{dep.version_origin or dep.origin}", have.origin)
        return
    module.dependencies.append(dep)


def read_build_files(root: str | os.PathLike) -> BuildIndex:
    """Every module under `root` (hidden directories and build outputs skipped) and the clients it builds with."""
    root = Path(root)
    index = BuildIndex()
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS and not d.startswith("."))
        module = _module_of_directory(Path(directory), set(filenames), root, index)
        if module is not None:
            index.modules.append(module)
    return index


def modules_with_clients(index: BuildIndex) -> Iterable[Module]:
    return (m for m in index.modules if m.dependencies)

