"""A build module and the RocketMQ clients it builds with: the facts every build-file reader returns.

Which artifacts are RocketMQ clients, what a Spring starter brings, and when a version text names one release
(`concrete_version`) live here, so the Maven, Gradle and Python readers agree on them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from rmqlint.client_releases import GO_CLIENT
from rmqplan.sources.origin import Origin, SourceProblem

ROCKETMQ_GROUP = "org.apache.rocketmq"
REMOTING_CLIENT = "rocketmq-client"  # the 4.x/5.x remoting client: its version decides the default client id
SPRING_STARTER = "rocketmq-spring-boot-starter"  # brings rocketmq-client
SPRING_V5_STARTER = "rocketmq-v5-client-spring-boot-starter"  # brings rocketmq-client-java
GRPC_CLIENT = "rocketmq-client-java"  # the 5.x gRPC client (through a proxy)
JAVA_ARTIFACTS = (REMOTING_CLIENT, SPRING_STARTER, GRPC_CLIENT, SPRING_V5_STARTER)
# Spring Cloud Alibaba's RocketMQ binder (Spring Cloud Stream): it builds the consumers and names them itself. Its
# release is the Spring Cloud Alibaba release, usually pinned by that project's BOM. Read from Maven poms.
CLOUD_GROUP = "com.alibaba.cloud"
CLOUD_BINDER = "spring-cloud-starter-stream-rocketmq"
CLOUD_BOM = "spring-cloud-alibaba-dependencies"
PYTHON_REMOTING_CLIENT = "rocketmq-client-python"  # 2.x, a binding of the C++ remoting client
PYTHON_GRPC_CLIENT = "rocketmq-python-client"  # 5.x, gRPC
PYTHON_PACKAGES = (PYTHON_REMOTING_CLIENT, PYTHON_GRPC_CLIENT)
# Go modules (`rmqplan.sources.buildfiles.gomod`): the remoting client v2, the 1.x binding of the C++ client, the
# 5.x gRPC client
GO_REMOTING_MODULE = GO_CLIENT  # rmqlint reads the same module from Go code
GO_CGO_MODULE = "github.com/apache/rocketmq-client-go"
GO_GRPC_MODULES = ("github.com/apache/rocketmq-clients/golang", "github.com/apache/rocketmq-clients/golang/v5")

# What each starter release depends on: `rocketmq.version` of rocketmq-spring-boot-parent, and
# `rocketmq.spring.client.version` of rocketmq-v5-client-spring-boot-parent, at each release tag of
# apache/rocketmq-spring. A release missing here is unknown, never the nearest one.
SPRING_STARTER_CLIENT = {
    "2.0.0": "4.3.2", "2.0.1": "4.3.2", "2.0.2": "4.4.0", "2.0.3": "4.5.1", "2.0.4": "4.5.2",
    "2.1.0": "4.6.0", "2.1.1": "4.7.1", "2.2.0": "4.8.0", "2.2.1": "4.9.1", "2.2.2": "4.9.3",
    "2.2.3": "5.0.0", "2.3.0": "5.2.0", "2.3.1": "5.3.0", "2.3.2": "5.3.1", "2.3.3": "5.3.1",
    "2.3.4": "5.3.2", "2.3.5": "5.3.2",
}
SPRING_V5_STARTER_CLIENT = {
    "2.3.0": "5.0.5", "2.3.1": "5.0.7", "2.3.2": "5.0.7", "2.3.3": "5.0.7", "2.3.4": "5.0.7", "2.3.5": "5.0.7",
}
# Gradle and Kotlin build scripts are read token by token: about 120 bytes per byte at the peak (`rmqplan check` on a
# build.gradle.kts of 1 MB of `implementation(...)` lines 170 MB, 4 MB 541 MB). A real build file is a few KB.
MAX_FILE_BYTES = 1024 * 1024


@dataclass(frozen=True)
class ClientDependency:
    """A RocketMQ client a module depends on, with the version resolved or the reason it is unknown."""

    artifact: str  # one of JAVA_ARTIFACTS, CLOUD_BINDER (Maven) or PYTHON_PACKAGES
    version: Optional[str]  # one release, as resolved; None when unknown
    unknown: str  # why the version is unknown ("" when it is known)
    origin: Origin  # where the dependency is declared
    version_origin: Optional[Origin] = None  # where the version's value is written (a property, a lock file)
    via: str = ""  # how the version was found when not beside the declaration ("dependencyManagement", ...)

    @property
    def remoting_client_version(self) -> Optional[str]:
        """The `rocketmq-client` (remoting) release this runs, which decides the default instance name;
        None for the gRPC clients, the Python binding and unknown versions."""
        if self.version is None:
            return None
        if self.artifact == REMOTING_CLIENT:
            return self.version
        if self.artifact == SPRING_STARTER:
            return SPRING_STARTER_CLIENT.get(self.version)
        return None

    @property
    def grpc(self) -> bool:
        """A 5.x gRPC client: queues are assigned by the proxy, not by the client's rebalance."""
        return self.artifact in (GRPC_CLIENT, SPRING_V5_STARTER, PYTHON_GRPC_CLIENT, *GO_GRPC_MODULES)


@dataclass
class Module:
    """A directory with a build file: what it is called and the RocketMQ clients it builds with."""

    directory: str  # the build file's directory
    build_file: str
    name: str  # artifactId, Gradle project name, Python project name, or the directory's name
    name_origin: Origin
    dependencies: list[ClientDependency] = field(default_factory=list)
    build_system: str = ""  # "maven" | "gradle" | "python" | "go"

    @property
    def client(self) -> Optional[ClientDependency]:
        """The dependency that decides the client's behaviour: the remoting client (as resolved, e.g. through
        dependency management or a lock file) first, then what brings one. Readers list each artifact once."""
        order = (REMOTING_CLIENT, SPRING_STARTER, GRPC_CLIENT, SPRING_V5_STARTER, *PYTHON_PACKAGES,
                 GO_REMOTING_MODULE, GO_CGO_MODULE, *GO_GRPC_MODULES)
        for artifact in order:
            for dep in self.dependencies:
                if dep.artifact == artifact:
                    return dep
        return None


@dataclass
class BuildIndex:
    modules: list[Module] = field(default_factory=list)
    problems: list[SourceProblem] = field(default_factory=list)

    def module_of(self, path: str | os.PathLike) -> Optional[Module]:
        """The module whose directory is the nearest ancestor of `path`."""
        best = None
        target = os.path.abspath(path)
        for module in self.modules:
            directory = os.path.abspath(module.directory)
            if target == directory or target.startswith(directory.rstrip(os.sep) + os.sep):
                if best is None or len(directory) > len(os.path.abspath(best.directory)):
                    best = module
        return best


def concrete_version(text: str) -> tuple[Optional[str], str]:
    """(the release, "") when `text` names one release; (None, why) for ranges, dynamic versions and leftovers of
    an unresolved expression, which the build tool resolves at build time."""
    version = text.strip()
    if version.endswith("!!"):  # Gradle's `strictly` shorthand: still one release
        version = version[:-2]
    if not version:
        return None, "an empty version"
    if version[0] in "[(" or "," in version:
        return None, f"a version range ({text}): the resolver picks one at build time"
    if "+" in version or version.lower().startswith("latest.") or version in ("LATEST", "RELEASE"):
        return None, f"a dynamic version ({text}): the resolver picks one at build time"
    if not version[0].isdigit() or not all(c.isalnum() or c in "._-" for c in version):
        return None, f"not a version: {text!r}"
    return version, ""


def directory_name(directory: Path) -> str:
    """The name a directory is known by (`.` resolved to the real name)."""
    return directory.name or directory.resolve().name


def read_build_text(path: Path, problems: list[SourceProblem]) -> Optional[str]:
    """A build file's text, or None with one problem (unreadable, binary, too large, not UTF-8)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as err:
        problems.append(SourceProblem(Origin(str(path)), f"cannot read: {err.strerror or err}"))
        return None
    if len(data) > MAX_FILE_BYTES or b"\0" in data:
        problems.append(SourceProblem(Origin(str(path)), "not a build file (binary or over 1 MB): not read"))
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        problems.append(SourceProblem(Origin(str(path), line), f"not UTF-8 (byte 0x{data[err.start]:02x})"))
        return None
