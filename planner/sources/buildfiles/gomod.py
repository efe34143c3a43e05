"""Go modules: the RocketMQ client a `go.mod` requires, and its release.

- `github.com/apache/rocketmq-client-go/v2` (the remoting client: its push consumer rebalances in the process,
  with its own code), `github.com/apache/rocketmq-client-go` (1.x, a cgo binding of the C++ client), and
  `github.com/apache/rocketmq-clients/golang` (the 5.x gRPC client, `/v5` too: the proxy assigns the queues);
- `require` lines and blocks (a `// indirect` one too: the build uses it all the same); the module's version is
  the release without its "v" (`v2.1.2` is "2.1.2"; a pseudo-version `v2.1.3-0.2025...-2173d070fd1b`, a commit after
  v2.1.2, stays whole);
- a `replace` of the client (every version, or the required one) decides: the same module at another version is
  that version; a local directory or another module (a fork) is code that is not the release, so the version is
  unknown and says which.

go.mod's grammar (`golang.org/x/mod/modfile`) is lines of tokens, `( ... )` blocks, `//` comments and quoted
tokens; only `module`, `require` and `replace` are read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from rmqplan.sources.buildfiles.module import (
    GO_CGO_MODULE,
    GO_GRPC_MODULES,
    GO_REMOTING_MODULE,
    ClientDependency,
    Module,
    directory_name,
    read_build_text,
)
from rmqplan.sources.origin import Origin, SourceProblem

GO_MODULES = (GO_REMOTING_MODULE, GO_CGO_MODULE, *GO_GRPC_MODULES)
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|`[^`]*`|=>|\(|\)|[^\s()"`]+')
_GO_VERSION = re.compile(r"^v(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?)$")


@dataclass(frozen=True)
class _Line:
    verb: str
    args: tuple[str, ...]
    line: int


def _tokens(text: str) -> list[tuple[int, list[str]]]:
    """Each line's tokens (comments dropped, quotes taken off), with its number."""
    out = []
    for number, raw in enumerate(text.splitlines(), start=1):
        tokens = []
        for m in _TOKEN.finditer(raw):
            token = m.group(0)
            if token.startswith("//"):
                break
            if token[0] in '"`':
                token = token[1:-1].replace('\\"', '"') if token[0] == '"' else token[1:-1]
            tokens.append(token)
        if tokens:
            out.append((number, tokens))
    return out


def _directives(text: str) -> list[_Line]:
    """Directives with their arguments; a block `verb ( ... )` gives one per line inside."""
    out, block = [], None
    for number, tokens in _tokens(text):
        if block is not None:
            if tokens == [")"]:
                block = None
            else:
                out.append(_Line(block, tuple(tokens), number))
        elif len(tokens) == 2 and tokens[1] == "(":
            block = tokens[0]
        else:
            out.append(_Line(tokens[0], tuple(tokens[1:]), number))
    return out


def module_directories(text: str) -> list[tuple[str, str]]:
    """The module paths a go.mod's text maps to directories, relative to the go.mod's: its `module` path to "",
    and each module `replace`d by a local directory (`replace example.com/names => ./third_party/names`: a path
    beginning `./` or `../`, as the go tool tells one from a module path) to that directory."""
    found = []
    for d in _directives(text):
        if d.verb == "module" and d.args:
            found.append((d.args[0], ""))
        elif d.verb == "replace" and "=>" in d.args and d.args.index("=>") in (1, 2):
            target = d.args[d.args.index("=>") + 1:]
            if len(target) == 1 and target[0].startswith(("./", "../")):
                found.append((d.args[0], target[0]))
    return found


def release_of(version: str) -> Optional[str]:
    """`v2.1.2` -> "2.1.2" (a pseudo-version kept whole); None when it is not a module version."""
    m = _GO_VERSION.match(version)
    return m.group(1) if m else None


def read_go_mod(path: Path, problems: list[SourceProblem]) -> Optional[Module]:
    """The module a go.mod declares, with the RocketMQ clients it requires; None when it cannot be read."""
    text = read_build_text(path, problems)
    if text is None:
        return None
    lines = _directives(text)
    name, name_origin = directory_name(path.parent), Origin(str(path))
    required: dict[str, tuple[str, int]] = {}
    replaced: dict[str, tuple[Optional[str], tuple[str, ...], int]] = {}  # module -> (its version or None, target)
    for d in lines:
        if d.verb == "module" and d.args:
            parts = d.args[0].split("/")
            name = parts[-2] if len(parts) > 1 and re.fullmatch(r"v\d+", parts[-1]) else parts[-1]
            name_origin = Origin(str(path), d.line)
        elif d.verb == "require" and len(d.args) >= 2 and d.args[0] in GO_MODULES:
            required[d.args[0]] = (d.args[1], d.line)
        elif d.verb == "replace" and "=>" in d.args and d.args[0] in GO_MODULES:
            arrow = d.args.index("=>")
            old = d.args[1] if arrow == 2 else None
            replaced[d.args[0]] = (old, d.args[arrow + 1:], d.line)
    module = Module(str(path.parent), str(path), name, name_origin, build_system="go")
    for artifact, (version, line) in required.items():
        origin = Origin(str(path), line)
        release, unknown, version_origin, via = release_of(version), "", None, ""
        if release is None:
            unknown = f"not a module version: {version!r}"
        replacement = replaced.get(artifact)
        if replacement is not None and replacement[0] in (None, version):
            _, target, at = replacement
            version_origin, via = Origin(str(path), at), "replace"
            if len(target) == 2 and target[0] == artifact and release_of(target[1]) is not None:
                release, unknown = release_of(target[1]), ""
            elif len(target) == 1:
                release, unknown = None, f"replaced by the local directory {target[0]}: not a release's code"
            else:
                release, unknown = None, f"replaced by {' '.join(target)}: another module's code"
        module.dependencies.append(ClientDependency(artifact, release, unknown, origin, version_origin, via))
    return module
