"""Which Go files are worth extracting clients from: a byte search, done before (and instead of) a parse."""

from __future__ import annotations

from rmqlint.client_releases import GO_CLIENT

# A Go file that makes a client, sends a message or writes a consume callback imports one of the client's packages.
CLIENT_MODULE = GO_CLIENT.encode()


def may_use_clients(data: bytes) -> bool:
    """False means parsing the file could yield no client, subscription, callback, produced tag or connection: only
    constants, which the linker asks for on demand."""
    return CLIENT_MODULE in data
