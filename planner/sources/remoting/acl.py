"""Signing a request for a broker with access control: what the Java client's `AclClientRPCHook` adds.

The request's ext fields get `AccessKey` (and `SecurityToken` when there is one); the signature is
base64(HmacSHA1(secret key, content)), where the content is the values of every ext field but `Signature`,
concatenated in the order of their keys (a `TreeMap`: Java string order), as UTF-8, followed by the body. It is
sent as the ext field `Signature`. RocketMQ 4.x (ACL 1.0, `aclEnable` with plain_acl.yml) and 5.x
(authentication, which also takes ACL 1.0's users over) check the same signature.

The keys come from the environment (`RMQPLAN_ACCESS_KEY`, `RMQPLAN_SECRET_KEY`) or from a file in the Java
client's key file format (properties: `AccessKey=...`, `SecretKey=...`, optionally `SecurityToken=...`), never from
the command line; the secret is never printed (`Credentials` hides it in its repr). A key file that others than
its owner may read gets a warning, as ssh warns of an unprotected private key; the keys are used all the same.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import stat
from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional

from rmqplan.model.javaorder import sort_strings

ACCESS_KEY, SECRET_KEY, SECURITY_TOKEN, SIGNATURE = "AccessKey", "SecretKey", "SecurityToken", "Signature"
ENV_ACCESS_KEY, ENV_SECRET_KEY = "RMQPLAN_ACCESS_KEY", "RMQPLAN_SECRET_KEY"
MAX_KEY_FILE = 64 * 1024


class CredentialsError(ValueError):
    """The keys cannot be read: one line, without the secret."""


@dataclass(frozen=True)
class Credentials:
    access_key: str
    secret_key: str = field(repr=False)
    security_token: Optional[str] = field(default=None, repr=False)
    source: str = ""  # where they came from, for messages: "the environment", "the file ~/key"


def signed(fields: Mapping[str, str], body: bytes, credentials: Credentials) -> dict[str, str]:
    """`fields` with AccessKey, SecurityToken and the Signature added, as AclClientRPCHook sends them."""
    out = dict(fields)
    out[ACCESS_KEY] = credentials.access_key
    if credentials.security_token is not None:
        out[SECURITY_TOKEN] = credentials.security_token
    out.pop(SIGNATURE, None)
    content = "".join(out[k] for k in sort_strings(out)).encode("utf-8") + body
    digest = hmac.new(credentials.secret_key.encode("utf-8"), content, hashlib.sha1).digest()
    out[SIGNATURE] = base64.b64encode(digest).decode("ascii")
    return out


def _text(value: str, where: str) -> str:
    """`value` if it is text the signature can be computed over (UTF-8), else CredentialsError naming `where`.
    Python hands an environment's bytes that are not UTF-8 over as lone surrogates."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise CredentialsError(f"{where} is not UTF-8 text") from None
    return value


def from_environment(environ: Mapping[str, str] = os.environ) -> Optional[Credentials]:
    """The keys of `RMQPLAN_ACCESS_KEY` and `RMQPLAN_SECRET_KEY`; None when neither is set."""
    access, secret = environ.get(ENV_ACCESS_KEY), environ.get(ENV_SECRET_KEY)
    if access is None and secret is None:
        return None
    if not access or not secret:
        missing = ENV_SECRET_KEY if access else ENV_ACCESS_KEY
        raise CredentialsError(f"{missing} is not set (or empty) while "
                               f"{ENV_ACCESS_KEY if access else ENV_SECRET_KEY} is: set both, or neither")
    return Credentials(_text(access, ENV_ACCESS_KEY).strip(), _text(secret, ENV_SECRET_KEY).strip(),
                       source="the environment")


def from_file(path: str, warn: Optional[Callable[[str], None]] = None) -> Credentials:
    """The keys of a properties file (`AccessKey=...`, `SecretKey=...`), the Java client's key file format.
    `warn` is given one line when others than its owner may read the file."""
    from jproperties import Properties

    try:
        with open(path, "rb") as f:
            info = os.fstat(f.fileno())
            data = f.read(MAX_KEY_FILE + 1)
    except OSError as e:
        raise CredentialsError(f"{path}: cannot read: {e.strerror or e}") from None
    if len(data) > MAX_KEY_FILE:
        raise CredentialsError(f"{path}: larger than {MAX_KEY_FILE // 1024} KB: not a key file")
    # group or others may read or write it: ssh's test of a private key file (it refuses one; rmqplan warns)
    if warn is not None and stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) & 0o077:
        warn(f"{path}: others than its owner have access to this key file (permissions "
             f"{stat.S_IMODE(info.st_mode):04o}): its secret key is not private; chmod 600 {path}")
    props = Properties()
    try:
        props.load(data, "utf-8")
    except Exception as e:  # jproperties' own errors, or a decoding error: never the content in the message
        raise CredentialsError(f"{path}: not a properties file ({type(e).__name__})") from None
    values = {k: v.data.strip() for k, v in props.items()}
    missing = [k for k in (ACCESS_KEY, SECRET_KEY) if not values.get(k)]
    if missing:
        raise CredentialsError(f"{path}: no {' and no '.join(missing)} (a key file has `AccessKey=...` and "
                               f"`SecretKey=...` lines)")
    return Credentials(values[ACCESS_KEY], values[SECRET_KEY], values.get(SECURITY_TOKEN) or None,
                       source=f"the file {path}")
