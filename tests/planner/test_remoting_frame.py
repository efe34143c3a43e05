"""RocketMQ's remoting frames: both header types read, requests written as the Java client writes them, anything
else one FrameError; ACL signing as AclClientRPCHook signs."""

from __future__ import annotations

import json
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rmqplan.sources.remoting.acl import (
    Credentials,
    CredentialsError,
    from_environment,
    from_file,
    signed,
)
from rmqplan.sources.remoting.codes import CURRENT_VERSION, VERSION_NAMES, version_name
from rmqplan.sources.remoting.frame import (
    JSON,
    MAX_FRAME,
    RESPONSE_FLAG,
    ROCKETMQ,
    Command,
    FrameError,
    decode,
    encode,
)


def _payload(frame: bytes) -> bytes:
    (total,) = struct.unpack_from(">i", frame)
    assert total == len(frame) - 4
    return frame[4:]


def test_a_json_request_is_length_header_length_header_body():
    frame = encode(Command(105, opaque=7, ext_fields={"topic": "T"}, body=b"xy", language="PYTHON",
                           version=CURRENT_VERSION))
    total, marked = struct.unpack_from(">iI", frame)
    assert marked >> 24 == JSON and total == 4 + (marked & 0xFFFFFF) + 2
    header = json.loads(frame[8:8 + (marked & 0xFFFFFF)])
    assert header == {"code": 105, "language": "PYTHON", "version": CURRENT_VERSION, "opaque": 7, "flag": 0,
                      "remark": None, "extFields": {"topic": "T"}, "serializeTypeCurrentRPC": "JSON"}
    assert frame.endswith(b"xy")


def test_a_response_in_rocketmq_binary_header_is_read():
    """The binary header, byte by byte as RocketMQSerializable writes it: a server configured with
    rocketmq.serialize.type=ROCKETMQ answers so."""
    remark = "the consumer group[g] not online".encode()
    ext = struct.pack(">h", 7) + b"version" + struct.pack(">i", 3) + b"479"
    header = (struct.pack(">hbhii", 206, 0, 479, 9, RESPONSE_FLAG) + struct.pack(">i", len(remark)) + remark
              + struct.pack(">i", len(ext)) + ext)
    payload = struct.pack(">I", (ROCKETMQ << 24) | len(header)) + header + b"{}"
    cmd = decode(payload)
    assert (cmd.code, cmd.language, cmd.version, cmd.opaque, cmd.is_response) == (206, "JAVA", 479, 9, True)
    assert cmd.remark == "the consumer group[g] not online" and cmd.ext_fields == {"version": "479"}
    assert cmd.body == b"{}" and cmd.serialize_type == ROCKETMQ


@given(st.builds(Command, code=st.integers(-2**15, 2**15 - 1), opaque=st.integers(-2**31, 2**31 - 1),
                 flag=st.integers(0, 3), remark=st.none() | st.text(min_size=1),
                 ext_fields=st.dictionaries(st.text(max_size=20), st.text(max_size=40), max_size=5),
                 body=st.binary(max_size=64), language=st.sampled_from(["JAVA", "CPP", "PYTHON", "GO"]),
                 version=st.integers(0, 2**15 - 1), serialize_type=st.sampled_from([JSON, ROCKETMQ])))
@settings(max_examples=300, deadline=None)
def test_what_is_encoded_decodes_to_itself(cmd):
    assert decode(_payload(encode(cmd))) == cmd


@given(st.binary(max_size=300))
@settings(max_examples=500, deadline=None)
def test_any_bytes_are_a_command_or_one_frame_error(data):
    try:
        decode(data)
    except FrameError as e:
        assert "\n" not in str(e)


@given(st.sampled_from([JSON, ROCKETMQ]), st.data())
@settings(max_examples=300, deadline=None)
def test_a_real_frame_cut_or_corrupted_is_a_frame_error_or_a_command(kind, data):
    payload = bytearray(_payload(encode(Command(203, 5, RESPONSE_FLAG, "remark", {"consumerGroup": "g"}, b"{}",
                                                serialize_type=kind))))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(payload) - 1))
        payload[i] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(payload)))
    try:
        decode(bytes(payload[:cut]))
    except FrameError as e:
        assert "\n" not in str(e)


@pytest.mark.parametrize("payload, message", [
    (b"\x00\x00", "shorter than its header length"),
    (struct.pack(">I", 50) + b"{}", "header length 50 exceeds the frame"),
    (struct.pack(">I", (7 << 24) | 2) + b"{}", "unknown header serialize type 7"),
    (struct.pack(">I", 5) + b"{code", "JSON header is not JSON"),
    (struct.pack(">I", 2) + b"[]", "JSON header is not an object"),
    (struct.pack(">I", 14) + b'{"code":"SUC"}', "`code` is not a whole number"),
    (struct.pack(">I", (1 << 24) | 4) + b"\x00\x01\x02\x03", "ROCKETMQ header: it ends inside the fixed fields"),
    (struct.pack(">I", 100_000) + b"[" * 100_000, "JSON header nested too deep"),  # json's recursion, caught
    (struct.pack(">I", 100_013) + b'{"extFields":' + b"[" * 100_000, "JSON header nested too deep"),
])
def test_malformed_frames_say_what_is_wrong(payload, message):
    with pytest.raises(FrameError, match=message.replace("`", ".").replace("(", r"\(")):
        decode(payload)


def test_the_limit_of_a_frame_is_the_java_default():
    assert MAX_FRAME == 16 * 1024 * 1024


def test_client_versions_are_the_java_enum_ordinals():
    """`Connection.version` is an ordinal of MQVersion.Version; these are the ones the live cluster reported."""
    assert (version_name(315), version_name(401), version_name(409), version_name(479)) == (
        "V4_5_1", "V4_9_4", "V4_9_8", "V5_3_3")
    assert VERSION_NAMES[0] == "V3_0_0_SNAPSHOT" and VERSION_NAMES[-1] == "HIGHER_VERSION"
    assert version_name(len(VERSION_NAMES)) is None and version_name(-1) is None


# ------------------------------------------------------------------------------------------------------- ACL


def test_the_signature_is_hmac_sha1_of_the_sorted_values_then_the_body():
    """The Java client's own test vector (AclSignerTest: "RocketMQ" signed with "12345678"): with no other field,
    the content is the access key alone."""
    out = signed({}, b"", Credentials("RocketMQ", "12345678"))
    assert out == {"AccessKey": "RocketMQ", "Signature": "IUc8rrO/0gDch8CjObLQsW2rsiA="}
    # values in key order (AccessKey < consumerGroup < topic), then the body
    a = signed({"topic": "Rocket", "consumerGroup": "MQ"}, b"", Credentials("", "12345678"))["Signature"]
    b = signed({}, b"RocketMQ", Credentials("", "12345678"))["Signature"]
    assert a != b
    assert signed({"topic": "MQ", "consumerGroup": "Rocket"}, b"", Credentials("", "12345678"))["Signature"] == \
        "IUc8rrO/0gDch8CjObLQsW2rsiA="


def test_the_secret_is_never_in_a_repr_or_an_error(tmp_path):
    creds = Credentials("ak", "very-secret", "token-secret")
    assert "very-secret" not in repr(creds) and "token-secret" not in repr(creds)
    with pytest.raises(CredentialsError) as e:
        from_environment({"RMQPLAN_SECRET_KEY": "very-secret"})
    assert "very-secret" not in str(e.value) and "RMQPLAN_ACCESS_KEY" in str(e.value)
    key = tmp_path / "key"
    key.write_text("SecretKey=very-secret\n")
    with pytest.raises(CredentialsError) as e:
        from_file(str(key))
    assert "very-secret" not in str(e.value) and "no AccessKey" in str(e.value)


def test_keys_from_the_environment_or_a_java_key_file(tmp_path):
    assert from_environment({}) is None
    env = from_environment({"RMQPLAN_ACCESS_KEY": "ak", "RMQPLAN_SECRET_KEY": "sk"})
    assert (env.access_key, env.secret_key, env.source) == ("ak", "sk", "the environment")
    key = tmp_path / "key"
    key.write_text("# the Java client's ~/key\nAccessKey = ak\nSecretKey=sk\n")
    assert (from_file(str(key)).access_key, from_file(str(key)).secret_key) == ("ak", "sk")
    with pytest.raises(CredentialsError, match="cannot read"):
        from_file(str(tmp_path / "none"))
