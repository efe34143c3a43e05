"""Bad input at scale: property-based tests over every frontend (Java, Python, Go, Spring .properties and YAML).

Inputs: random bytes, mutations of the real files the project ships (rule examples, fixtures, examples/), deep
nesting, huge lines, odd encodings and line ends, YAML anchors, aliases and merge keys. Each input goes through
the public entry point (`lint_sources`: discovery kinds, prefilter, frontend, linker, rules, suppressions)
beside a known-bad sentinel project. What must hold for every input:

- no exception escapes, and no frontend, linker or rule crashes behind an RMQ900 (an "internal error" note);
- a file that fails never hides the findings of other files: the sentinel's findings are all still reported;
- an input never takes longer than `TIME_LIMIT_S` (a hang is a crash too).

`make test` runs a short, fixed slice (the `rmqlint-ci` profile: 15 inputs per test); `make fuzz` runs the
`rmqlint-fuzz` profile (set by `RMQLINT_FUZZ_PROFILE`): at least 100,000 inputs over the tests of this module
(`RMQLINT_FUZZ_INPUTS` to change it), shared out by `fuzz(per_mille)`.
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import string
import tempfile
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rmqlint.cli import main
from rmqlint.engine import lint_sources
from rmqlint.rules import ALL_RULES
from rmqlint.rules._examples import line_of

REPO = Path(__file__).resolve().parents[2]
TIME_LIMIT_S = 60  # per input: the slowest legitimate input (a big file on a loaded machine) takes a few seconds

# --- profiles -------------------------------------------------------------------------------------------------

FUZZ_TOTAL = int(os.environ.get("RMQLINT_FUZZ_INPUTS", "100000"))
_COMMON = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                           HealthCheck.large_base_example],
    print_blob=True,
)
settings.register_profile("rmqlint-ci", max_examples=15, derandomize=True, **_COMMON)
settings.register_profile("rmqlint-fuzz", **_COMMON)
PROFILE_NAME = os.environ.get("RMQLINT_FUZZ_PROFILE", "rmqlint-ci")
PROFILE = settings.get_profile(PROFILE_NAME)
SHARES: dict[str, int] = {}  # test name -> its share of FUZZ_TOTAL, per mille


def fuzz(per_mille: int):
    """A fuzz test's settings. In the fuzz profile it gets `per_mille` of the FUZZ_TOTAL inputs: cheap inputs
    (random bytes, ~5 ms each) get many, costly ones (deep nesting, alias bombs, ~0.2 s) fewer, so that
    `make fuzz` runs its 100,000 inputs in minutes, not hours."""
    def decorate(test):
        SHARES[test.__name__] = per_mille
        if PROFILE_NAME == "rmqlint-fuzz":
            return settings(PROFILE, max_examples=-(-FUZZ_TOTAL * per_mille // 1000))(test)
        return settings(PROFILE)(test)

    return decorate


# --- the sentinel: findings that no other file can change -----------------------------------------------------

_SENTINEL_JAVA_PATH = "sentinel/src/main/java/com/sentinel/SentinelConsumer.java"
_SENTINEL_JAVA = """\
package com.sentinel;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

public class SentinelConsumer {
    public static void main(String[] args) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("sentinel_group");
        consumer.setInstanceName("sentinel-node");
        consumer.subscribe("SentinelTopic", "*");
        consumer.start();
    }
}
"""
_SENTINEL_PY_PATH = "sentinel/sentinel_consumer.py"
_SENTINEL_PY = """\
from rocketmq.client import PushConsumer

sentinel = PushConsumer("sentinel_py_group")
sentinel.set_instance_name("sentinel-py-node")
sentinel.subscribe("SentinelPyTopic", print)
"""
SENTINEL = {_SENTINEL_JAVA_PATH: _SENTINEL_JAVA}
SENTINEL_EXPECTED = {("RMQ001", _SENTINEL_JAVA_PATH, line_of(_SENTINEL_JAVA, "setInstanceName"))}
SENTINEL_BOTH = {**SENTINEL, _SENTINEL_PY_PATH: _SENTINEL_PY}
SENTINEL_BOTH_EXPECTED = SENTINEL_EXPECTED | {("RMQ001", _SENTINEL_PY_PATH, line_of(_SENTINEL_PY, "set_instance"))}

# An RMQ900 that tells of a bug rather than of the input: a Python exception's name, or "internal error".
_CRASH = re.compile(r"internal error|could not analyse|\b[A-Z]\w*(?:Error|Exception)\b|StopIteration")
_NESTING = re.compile(r"nested too deeply|too deeply nested", re.I)


class Hang(Exception):
    pass


@contextmanager
def time_limit(seconds: int):
    def on_alarm(_signum, _frame):
        raise Hang(f"an input took over {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def check(files: dict[str, bytes | str], sentinel: dict[str, str] = SENTINEL, expected=SENTINEL_EXPECTED) -> list:
    """Lint the fuzzed files beside the sentinel; assert the properties above; return the findings."""
    project = {**sentinel, **files}
    with time_limit(TIME_LIMIT_S):
        findings = lint_sources(project)
    for f in findings:
        assert f.location.path in project, f
        assert f.location.line >= 1 and f.location.column >= 1, f
        assert f.location.end_line >= f.location.line, f
        if f.code == "RMQ900":
            assert not _CRASH.search(f.message) or _NESTING.search(f.message), f"crash: {f.message}"
    got = {(f.code, f.location.path, f.location.line) for f in findings}
    assert expected <= got, f"findings of other files were lost: {sorted(expected - got)}"
    return findings


# --- corpus: the real files the project ships -----------------------------------------------------------------

KINDS = {".java": "java", ".py": "python", ".go": "go", ".properties": "properties", ".yml": "yaml", ".yaml": "yaml"}
TARGET = {  # where a fuzzed file of each kind lives (a name its frontend claims)
    "java": "src/main/java/com/fuzz/Fuzzed.java",
    "python": "app/fuzzed.py",
    "go": "svc/fuzzed.go",
    "properties": "src/main/resources/application.properties",
    "yaml": "src/main/resources/application.yml",
}
# Bytes that make each frontend's prefilter say "parse me".
MARKER = {
    "java": b"import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;\n",
    "python": b"from rocketmq.client import PushConsumer\n",
    "go": b'package main\n\nimport (\n\t"github.com/apache/rocketmq-client-go/v2"\n\t"github.com/apache/rocketmq-client-go/v2/consumer"\n)\n\n',
    "properties": b"rocketmq.name-server=127.0.0.1:9876\n",
    "yaml": b"rocketmq:\n  name-server: 127.0.0.1:9876\n",
}


def _kind(path: str) -> str | None:
    for suffix, kind in KINDS.items():
        if path.endswith(suffix):
            return kind
    return None


# Real-looking Spring .properties files (the project ships few): escapes, continuations, profiles, placeholders.
_PROPERTIES = [
    """\
# 订单服务 (order service)
spring.application.name=order-service
server.port=8080
rocketmq.name-server=10.0.0.1:9876;10.0.0.2:9876
rocketmq.producer.group=order_producer
rocketmq.producer.send-message-timeout=3000
rocketmq.consumer.group=order_consumer
rocketmq.consumer.topic=OrderTopic
rocketmq.consumer.selector-expression=TagA || TagB
rocketmq.consumer.instance-name=${HOSTNAME:order-node}
order.mq.tag=Created
""",
    """\
rocketmq.name-server = 127.0.0.1:9876
rocketmq.consumer.group : pull_group
rocketmq.consumer.topic   PullTopic
rocketmq.consumer.instance-name=node\u002d1
rocketmq.consumer.access-key=AK\
    1234
! a comment
spring.profiles.active=dev,mq
""",
    """\
spring.config.activate.on-profile=prod
rocketmq.consumer.instance-name=prod-${random.value}
rocketmq.producer.group=${spring.application.name}-producer
logging.level.RocketmqClient=WARN
""",
]


def _corpus() -> dict[str, list[bytes]]:
    found: dict[str, list[bytes]] = {kind: [] for kind in TARGET}
    found["properties"] += [text.encode("utf-8") for text in _PROPERTIES]
    for rule in ALL_RULES:
        for example in [*rule.VALID, *rule.INVALID]:
            for path, text in example.files.items():
                if (kind := _kind(path)) is not None:
                    found[kind].append(text.encode("utf-8"))
    for base in (REPO / "tests" / "lint" / "fixtures", REPO / "examples"):
        for path in sorted(base.rglob("*")):
            if path.is_file() and (kind := _kind(path.name)) is not None:
                found[kind].append(path.read_bytes())
    return found


CORPUS = _corpus()
kinds = st.sampled_from(sorted(TARGET))


@st.composite
def real_file(draw, kind=None):
    kind = kind or draw(kinds)
    return kind, draw(st.sampled_from(CORPUS[kind]))


def test_the_corpus_covers_every_frontend():
    assert all(len(CORPUS[kind]) >= 3 for kind in TARGET), {k: len(v) for k, v in CORPUS.items()}


# --- mutations --------------------------------------------------------------------------------------------------

_INTERESTING = [
    b"(", b")", b"{", b"}", b"[", b"]", b'"', b"'", b'"""', b"\\", b"\\u", b"\\u00", b"${", b"${a:", b"}", b":",
    b"=", b"\n", b"\r", b"\r\n", b"\t", b" ", b"#", b"//", b"/*", b"*/", b"@", b"&a", b"*a", b"<<: *a", b"---",
    b"- ", b"? ", b"!!binary ", b"!foo ", b"|", b">", b"\xef\xbb\xbf", b"\xff\xfe", b"\x00", b"\xc3", b"\xed\xa0\x80",
    b"\xe2\x80\xa8", b"\xc2\x85", b"\x0c", b"\x1a", b"\xf0\x9f\x98\x80", b"+", b"?", b"->", b"::", b"lambda: ",
    b"if x else ", b"setInstanceName(", b"set_instance_name(", b"subscribe(", b"new Message(", b"setTags(",
    b"MessageModel.BROADCASTING", b"RECONSUME_LATER", b"rmqlint: disable=RMQ001", b"rocketmq.consumer.",
    b"instance-name: ", b"@RocketMQMessageListener(", b"class ", b"def ", b"static final String X = ", b"import ",
    b"from rocketmq.client import *\n", b"@Value(\"${x}\")", b"\"topic:tag\"", b"async ", b"await ", b"yield ",
    b"`", b":=", b"func(", b"go ", b"defer ", b"...", b"consumer.WithInstance(", b"opts = append(opts, ",
    b"consumer.MessageSelector{", b"consumer.ConsumeRetryLater", b"goto L\n", b"fallthrough\n", b"L: ",
]


@st.composite
def mutated(draw, data: bytes) -> bytes:
    """A few edits of `data`: deletions, duplications, insertions of syntax-heavy tokens or random bytes,
    byte flips, truncation."""
    for _ in range(draw(st.integers(1, 6))):
        n = len(data)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 200)))
        op = draw(st.sampled_from(["delete", "duplicate", "insert_token", "insert_bytes", "flip", "truncate",
                                   "swap", "repeat_token"]))
        if op == "delete":
            data = data[:i] + data[j:]
        elif op == "duplicate":
            data = data[:j] + data[i:j] + data[j:]
        elif op == "insert_token":
            data = data[:i] + draw(st.sampled_from(_INTERESTING)) + data[i:]
        elif op == "insert_bytes":
            data = data[:i] + draw(st.binary(max_size=16)) + data[i:]
        elif op == "flip" and i < n:
            data = data[:i] + bytes([draw(st.integers(0, 255))]) + data[i + 1:]
        elif op == "truncate":
            data = data[:i]
        elif op == "swap" and j < n:
            k = draw(st.integers(j, n))
            data = data[:i] + data[j:k] + data[i:j] + data[k:]
        elif op == "repeat_token":
            data = data[:i] + draw(st.sampled_from(_INTERESTING)) * draw(st.integers(2, 300)) + data[i:]
    return data


# --- the tests (each with its share of the fuzz profile's inputs) ---------------------------------------------


@fuzz(155)
@given(kind=kinds, data=st.binary(max_size=4096))
def test_random_bytes(kind, data):
    check({TARGET[kind]: MARKER[kind] + data})


@fuzz(155)
@given(kind=kinds, text=st.text(st.characters(codec="utf-8"), max_size=2000))
def test_random_text(kind, text):
    check({TARGET[kind]: MARKER[kind] + text.encode("utf-8")})


@fuzz(190)
@given(data=st.data())
def test_mutations_of_real_files(data):
    kind, original = data.draw(real_file())
    check({TARGET[kind]: data.draw(mutated(original))})


@fuzz(75)
@given(data=st.data())
def test_mutations_of_several_files_at_once(data):
    """Several broken files of every kind, and the Python sentinel too: one failure hides nothing else."""
    files = {}
    for number in range(data.draw(st.integers(1, 4))):
        kind, original = data.draw(real_file())
        path = TARGET[kind] if number == 0 else TARGET[kind].replace("uzzed", f"uzzed{number}").replace(
            "application", f"application-p{number}")
        files[path] = data.draw(mutated(original)) if data.draw(st.booleans()) else original
    check(files, SENTINEL_BOTH, SENTINEL_BOTH_EXPECTED)


def _nest(kind: str, shape: str, depth: int) -> bytes:
    """A RocketMQ-looking file with one construct nested `depth` deep."""
    if kind == "java":
        inner = {
            "parens": "(" * depth + '"n"' + ")" * depth,
            "concat": " + ".join(['"n"'] * depth),
            "ternary": "x ? " * depth + '"n"' + ' : "m"' * depth,
            "calls": "f(" * depth + '"n"' + ")" * depth,
            "arrays": "new Object[]{" * depth + "}" * depth,
            "lambdas": "() -> " * depth + '"n"',
            "casts": "(String) " * depth + '"n"',
            "unbalanced": "(" * depth,
        }[shape]
        return (MARKER["java"] + (
            "class Fuzzed {\n  void run() throws Exception {\n"
            '    DefaultMQPushConsumer c = new DefaultMQPushConsumer("g");\n'
            f"    c.setInstanceName({inner});\n"
            '    c.subscribe("T", "*");\n    c.start();\n  }\n}\n').encode())
    if kind == "go":
        inner = {
            "parens": "(" * depth + '"n"' + ")" * depth,
            "concat": " + ".join(['"n"'] * depth),
            "ternary": "func() string { if x { return " * depth + '"n"' + " }; return \"m\" }()" * depth,
            "calls": "f(" * depth + '"n"' + ")" * depth,
            "arrays": "[]any{" * depth + "}" * depth,
            "lambdas": "func() string { return " * depth + '"n"' + " }()" * depth,
            "casts": "string(" * depth + '"n"' + ")" * depth,
            "unbalanced": "(" * depth,
        }[shape]
        return MARKER["go"] + (f'func run() {{\n\tc, _ := rocketmq.NewPushConsumer(consumer.WithGroupName("g"), '
                               f'consumer.WithInstance({inner}))\n\t_ = c.Subscribe("T", consumer.MessageSelector{{}}, '
                               'nil)\n\tc.Start()\n}\n').encode()
    if kind == "python":
        inner = {
            "parens": "(" * depth + '"n"' + ")" * depth,
            "concat": " + ".join(['"n"'] * depth),
            "ternary": '"n" if x else ' * depth + '"m"',
            "calls": "f(" * depth + '"n"' + ")" * depth,
            "arrays": "[" * depth + "]" * depth,
            "lambdas": "lambda: " * depth + '"n"',
            "casts": "not " * depth + "x",
            "unbalanced": "(" * depth,
        }[shape]
        return MARKER["python"] + (f'c = PushConsumer("g")\nc.set_instance_name({inner})\n'
                                   'c.subscribe("T", print)\n').encode()
    if kind == "yaml":
        if shape in ("ternary", "lambdas"):  # a chain of keys, each the placeholder of the next (a cycle when odd)
            last = "k0" if depth % 2 else "end"
            keys = "".join(f"k{i}: ${{k{i + 1}}}\n" for i in range(depth - 1)) + f"k{depth - 1}: ${{{last}}}\n"
            return f"rocketmq:\n  consumer:\n    group: g\n    topic: T\n    instance-name: ${{k0}}\n{keys}".encode()
        if shape in ("parens", "calls", "unbalanced"):
            body = "rocketmq:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(depth)) + "  " * (depth + 1) + "v\n"
        elif shape in ("arrays", "casts"):
            body = "rocketmq:\n  consumer:\n    instance-name: " + "[" * depth + "n" + "]" * depth + "\n"
        else:
            body = "rocketmq:\n  consumer:\n    instance-name: " + "{a: " * depth + "n" + "}" * depth + "\n"
        return body.encode()
    # properties: continuation lines, nested placeholders, chains of keys
    if shape in ("ternary", "lambdas"):
        last = "k0" if depth % 2 else "end"
        keys = "".join(f"k{i}=${{k{i + 1}}}\n" for i in range(depth - 1)) + f"k{depth - 1}=${{{last}}}\n"
        return MARKER["properties"] + f"rocketmq.consumer.group=g\nrocketmq.consumer.topic=T\n" \
                                      f"rocketmq.consumer.instance-name=${{k0}}\n{keys}".encode()
    if shape in ("parens", "calls", "unbalanced"):
        value = "${a:" * depth + "n" + "}" * depth
    elif shape == "concat":
        value = "\\\n ".join(["n"] * depth)
    else:
        value = "${" * depth
    return MARKER["properties"] + f"rocketmq.consumer.instance-name={value}\n".encode()


@fuzz(15)
@given(kind=kinds,
       shape=st.sampled_from(["parens", "concat", "ternary", "calls", "arrays", "lambdas", "casts", "unbalanced"]),
       depth=st.one_of(st.integers(1, 120), st.integers(120, 3000), st.sampled_from([5000, 20000])))
def test_deep_nesting(kind, shape, depth):
    check({TARGET[kind]: _nest(kind, shape, depth)})


@fuzz(40)
@given(kind=kinds, unit=st.sampled_from(["a", "é", "字", "😀", '" + "', "\\t", "${x}", "(", "// ", " ", "\\"]),
       length=st.integers(1, 200_000), where=st.sampled_from(["literal", "comment", "line", "key"]))
def test_huge_lines(kind, unit, length, where):
    filler = (unit * (length // len(unit) + 1))[:length]
    if kind == "java":
        text = {
            "literal": f'class F {{ void r() {{ DefaultMQPushConsumer c = new DefaultMQPushConsumer("g"); '
                       f'c.setInstanceName("{filler}"); c.start(); }} }}',
            "comment": f"// {filler}\nclass F {{}}",
            "line": f"class F {{ {filler} }}",
            "key": f'class F {{ static final String {filler} = "x"; }}',
        }[where]
    elif kind == "go":
        text = {
            "literal": f'func r() {{ c, _ := rocketmq.NewPushConsumer(consumer.WithInstance("{filler}")); '
                       'c.Start() }\n',
            "comment": f"// {filler}\nfunc r() {{}}\n",
            "line": f"func r() {{ {filler} }}\n",
            "key": f'const {filler} = "x"\n',
        }[where]
    elif kind == "python":
        text = {
            "literal": f'c = PushConsumer("g")\nc.set_instance_name("{filler}")\n',
            "comment": f"# {filler}\n",
            "line": f"x = 1; {filler}\n",
            "key": f'{filler} = "x"\n',
        }[where]
    elif kind == "yaml":
        text = {
            "literal": f"rocketmq:\n  consumer:\n    instance-name: \"{filler}\"\n",
            "comment": f"# {filler}\nrocketmq:\n  consumer:\n    group: g\n",
            "line": f"rocketmq: {filler}\n",
            "key": f"rocketmq:\n  {filler}: x\n",
        }[where]
    else:
        text = {
            "literal": f"rocketmq.consumer.instance-name={filler}\n",
            "comment": f"# {filler}\n",
            "line": filler,
            "key": f"rocketmq.{filler}=x\n",
        }[where]
    check({TARGET[kind]: MARKER[kind] + text.encode("utf-8")})


ENCODINGS = ["utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "latin-1", "cp1252", "gbk", "gb18030",
             "shift_jis", "euc-kr", "big5", "koi8-r", "utf-7", "cp037"]
NEWLINES = ["\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029"]
_NON_ASCII = "éü字中文注释€😀\u200b\u00a0\ufeff"


@fuzz(95)
@given(data=st.data(), encoding=st.sampled_from(ENCODINGS), newline=st.sampled_from(NEWLINES),
       sprinkle=st.text(st.sampled_from(_NON_ASCII), max_size=8))
def test_odd_encodings_and_line_ends(data, encoding, newline, sprinkle):
    """Real files with non-ASCII text (comments, literals), re-encoded and with other line ends."""
    kind, original = data.draw(real_file())
    text = original.decode("utf-8", "replace")
    lines = text.split("\n")
    at = data.draw(st.integers(0, max(0, len(lines) - 1)))
    lines[at] = lines[at] + sprinkle
    text = newline.join(lines)
    try:
        encoded = text.encode(encoding, "replace")
    except (UnicodeError, LookupError):
        assume(False)
    check({TARGET[kind]: encoded})


@fuzz(95)
@given(raw=st.binary(min_size=1, max_size=64), kind=kinds, position=st.sampled_from(["start", "literal", "end"]))
def test_invalid_utf8_in_real_positions(raw, kind, position):
    head = MARKER[kind]
    body = {
        "java": (b'class F { void r() { DefaultMQPushConsumer c = new DefaultMQPushConsumer("g"); '
                 b'c.setInstanceName("', b'"); c.start(); } }\n'),
        "python": (b'c = PushConsumer("g")\nc.set_instance_name("', b'")\n'),
        "go": (b'func r() {\n\tc, _ := rocketmq.NewPushConsumer(consumer.WithInstance("', b'"))\n\tc.Start()\n}\n'),
        "yaml": (b"rocketmq:\n  consumer:\n    instance-name: ", b"\n"),
        "properties": (b"rocketmq.consumer.instance-name=", b"\n"),
    }[kind]
    if position == "start":
        data = raw + head + body[0] + b"x" + body[1]
    elif position == "literal":
        data = head + body[0] + raw + body[1]
    else:
        data = head + body[0] + b"x" + body[1] + raw
    check({TARGET[kind]: data})


# --- YAML: anchors, aliases, merge keys, tags, complex keys ---------------------------------------------------

_scalars = st.one_of(
    st.text(string.ascii_letters + string.digits + "-_.${}:*&!|>#@ '\"", max_size=12),
    st.integers(-10**20, 10**20).map(str),
    st.sampled_from(["~", "null", "true", "no", "off", ".inf", "-.nan", "0x1f", "0o17", "1_000", "2001-12-14",
                     "2001-12-14t21:59:43.10-05:00", "=", "<<", "? x", "!!str 1", "!!binary aGk=", "!!int x",
                     "!!python/object:os.system x", "!!set {a, b}", "!!omap [a: 1]", "*undefined", "'", '"\\x"',
                     '"\\ud800"', "@artifactId@", "${project.version}", "[", "{"]),
)


@st.composite
def yaml_documents(draw) -> str:
    """YAML built line by line from keys that Spring reads, with anchors on some values and aliases, merge keys
    and complex keys pointing at them."""
    keys = st.sampled_from(["rocketmq", "consumer", "producer", "instance-name", "group", "topic",
                            "selector-expression", "name-server", "spring", "profiles", "active", "<<", "? [a]",
                            "1", "true", "null", "[a, b]", "{a: 1}", "a b", "x.y", "on"])
    lines, anchors = [], []

    def node(depth: int, indent: int):
        choice = draw(st.integers(0, 7 if depth < 6 else 2))
        pad = "  " * indent
        anchor = ""
        if draw(st.booleans()) and len(anchors) < 8:
            anchor = f"&a{len(anchors)} "
            anchors.append(f"a{len(anchors)}")
        if choice <= 1 or depth >= 6:
            return " " + anchor + draw(_scalars)
        if choice == 2 and anchors:
            return " *" + draw(st.sampled_from(anchors))
        if choice == 3:
            items = [draw(_scalars) if not anchors or draw(st.booleans()) else "*" + draw(st.sampled_from(anchors))
                     for _ in range(draw(st.integers(0, 4)))]
            return " " + anchor + "[" + ", ".join(items) + "]"
        if choice == 4:
            out = [" " + anchor.strip()] if anchor else [""]
            for _ in range(draw(st.integers(1, 3))):
                out.append(f"{pad}-{node(depth + 1, indent + 1)}")
            return "\n".join(out)
        out = [" " + anchor.strip()] if anchor else [""]
        for _ in range(draw(st.integers(1, 4))):
            key = draw(keys)
            if key == "<<" and anchors:
                out.append(f"{pad}<<: *{draw(st.sampled_from(anchors))}")
            else:
                out.append(f"{pad}{key}:{node(depth + 1, indent + 1)}")
        return "\n".join(out)

    for number in range(draw(st.integers(1, 3))):
        if number:
            lines.append("---")
        lines.append("rocketmq:" + node(0, 1))
        if draw(st.booleans()):
            lines.append("spring:\n  profiles:" + node(3, 2))
    return "\n".join(lines) + "\n"


@fuzz(75)
@given(doc=yaml_documents())
def test_yaml_anchors_aliases_and_merge_keys(doc):
    check({TARGET["yaml"]: doc.encode("utf-8")})


@fuzz(10)
@given(levels=st.integers(1, 40), width=st.integers(2, 12), shape=st.sampled_from(["list", "map", "merge", "self"]))
def test_yaml_alias_bombs(levels, width, shape):
    """Billion laughs and recursive aliases: read in bounded time and memory, or refused with one RMQ900."""
    lines = ["rocketmq:", "  consumer:", "    group: g"]
    if shape == "self":
        lines.append("    instance-name: &loop [*loop]" if levels % 2 else "    x: &loop {a: *loop}")
    else:
        lines.append('    l0: &l0 ["lol"]' if shape == "list" else "    l0: &l0 {k: lol}")
        for i in range(1, levels):
            refs = ", ".join([f"*l{i - 1}"] * width)
            if shape == "list":
                lines.append(f"    l{i}: &l{i} [{refs}]")
            elif shape == "map":
                lines.append(f"    l{i}: &l{i} {{" + ", ".join(f"k{j}: *l{i - 1}" for j in range(width)) + "}")
            else:
                lines.append(f"    l{i}: &l{i}\n      <<: *l{i - 1}\n      k{i}: v")
        lines.append(f"    instance-name: *l{levels - 1}")
    check({TARGET["yaml"]: ("\n".join(lines) + "\n").encode()})


# Property files: escapes, continuations and separators, the parts a hand-written reader gets wrong.
_prop_piece = st.sampled_from([
    "rocketmq.consumer.instance-name", "rocketmq.consumer.group", "rocketmq.name-server", "=", ":", " ", "\t",
    "\\", "\\\n", "\\u", "\\u00", "\\u0041", "\\uZZZZ", "\\uD800", "\\n", "\\t", "\\=", "\\:", "${", "}", ":", "#",
    "!", "\n", "\r", "\r\n", "x", "字", "\\\\", "rmqlint: disable", "\f",
])


@fuzz(75)
@given(pieces=st.lists(_prop_piece, max_size=60), latin=st.booleans())
def test_properties_escapes_and_continuations(pieces, latin):
    text = "".join(pieces)
    data = text.encode("latin-1", "replace") if latin else text.encode("utf-8")
    check({TARGET["properties"]: MARKER["properties"] + data})


@fuzz(20)
@given(data=st.data(), fmt=st.sampled_from(["text", "json", "sarif", "github"]))
def test_the_command_on_disk_with_its_cache(data, fmt):
    """The whole command, as a user runs it, on a project written to disk: discovery, the cache (a cold run, then
    a warm one that must say the same), every reporter, and the bytes printed (valid UTF-8, JSON that parses)."""
    files = {}
    for number in range(data.draw(st.integers(1, 3))):
        kind, original = data.draw(real_file())
        path = TARGET[kind].replace("uzzed", f"uzzed{number}").replace("application", f"application-p{number}")
        files[path] = data.draw(mutated(original))
    with tempfile.TemporaryDirectory(prefix="rmqlint-fuzz-") as tmp:
        root = Path(tmp)
        (root / ".rmqlint.toml").write_text("", encoding="utf-8")
        for rel, content in {**SENTINEL, **files}.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
            os.utime(path, (1_600_000_000, 1_600_000_000))  # old enough for the cache to trust the stat
        outputs = [_run_cli([str(root), "--format", fmt]) for _ in range(2)]
    (code, out, err), warm = outputs
    assert warm == outputs[0], "the warm run (from the cache) differs from the cold one"
    assert code == 1 and err == b"", err.decode("utf-8", "replace")
    text = out.decode("utf-8")
    if fmt in ("json", "sarif"):
        json.loads(text)
    crash = [line for line in text.splitlines() if "RMQ900" in line and _CRASH.search(line)
             and not _NESTING.search(line)]
    assert not crash, crash


def _run_cli(argv: list[str]) -> tuple[int, bytes, bytes]:
    out, err = io.BytesIO(), io.BytesIO()
    out_text = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    err_text = io.TextIOWrapper(err, encoding="utf-8", write_through=True)
    with time_limit(TIME_LIMIT_S), redirect_stdout(out_text), redirect_stderr(err_text):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_the_profile_budget_reaches_the_target():
    """`make fuzz` must run at least 100,000 inputs: every fuzz test has a share, and the shares make the whole."""
    fuzzed = [name for name, fn in globals().items() if name.startswith("test_") and hasattr(fn, "hypothesis")]
    assert sorted(SHARES) == sorted(fuzzed)
    assert sum(SHARES.values()) == 1000
    assert sum(-(-100_000 * share // 1000) for share in SHARES.values()) >= 100_000


def test_the_sentinel_stands_alone():
    """The oracle has teeth: the sentinel alone gives exactly its findings, and a known crash message counts."""
    findings = lint_sources(dict(SENTINEL_BOTH))
    assert {(f.code, f.location.path, f.location.line) for f in findings} == SENTINEL_BOTH_EXPECTED
    assert _CRASH.search("internal error while analysing Java: KeyError: 'x'")
    assert not _CRASH.search("YAML error: found undefined alias 'a'")
