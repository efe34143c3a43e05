"""Helpers for writing rule examples: the expected line is found from the text, so an edit to an example cannot
leave a stale line number behind."""

from __future__ import annotations


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based line of the `occurrence`-th line containing `needle`; fails loudly when there are fewer."""
    seen = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    raise ValueError(f"{needle!r} occurs {seen} time(s), wanted occurrence {occurrence}")


# The packages a Go example may use, by the name its code calls them.
_GO_PACKAGES = {"context": "context", "fmt": "fmt", "os": "os", "rocketmq": "github.com/apache/rocketmq-client-go/v2",
                "consumer": "github.com/apache/rocketmq-client-go/v2/consumer",
                "primitive": "github.com/apache/rocketmq-client-go/v2/primitive",
                "producer": "github.com/apache/rocketmq-client-go/v2/producer"}


def go_file(body: str, package: str = "main") -> str:
    """A Go source file holding `body`, importing exactly the packages of `_GO_PACKAGES` its code names (`os.`,
    `consumer.`...), as the compiler wants them."""
    used = [path for name, path in _GO_PACKAGES.items() if f"{name}." in body]
    imports = "".join(f'\t"{path}"\n' for path in used)
    return f"package {package}\n\nimport (\n{imports})\n\n{body}"
