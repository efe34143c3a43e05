"""Which Go files are worth extracting clients from: a byte search, done before (and instead of) a parse."""

from __future__ import annotations

# A Go file that makes a client, sends a message or writes a consume callback imports one of the client's packages.
CLIENT_MODULE = b"github.com/apache/rocketmq-client-go/v2"


def may_use_clients(data: bytes) -> bool:
    """False means parsing the file could yield no client, subscription, callback, produced tag or connection: only
    constants, which the linker asks for on demand."""
    return CLIENT_MODULE in data
