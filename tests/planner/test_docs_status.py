"""docs/status.md shows real output: its `rmqplan status` example is what the command prints for the frames recorded
from the live test cluster (tests/planner/fixtures/remoting/status.json), but for its first line, which holds the
name server's address and the time of the read."""

from __future__ import annotations

import io
import re
from pathlib import Path

from rmqplan import cli
from tests.planner.remoting_server import Replay

DOC = Path(__file__).resolve().parents[2] / "docs" / "status.md"
RECORDING = Path(__file__).parent / "fixtures" / "remoting" / "status.json"
COMMAND = "$ rmqplan status --namesrv 127.0.0.1:9876\n"


def test_the_status_example_is_what_status_prints():
    doc = DOC.read_text(encoding="utf-8")
    start = doc.index(COMMAND) + len(COMMAND)
    shown = doc[start:doc.index("```", start)]
    replay = Replay(RECORDING)
    try:
        out, err = io.StringIO(), io.StringIO()
        code = cli.run(["status", "--namesrv", replay.namesrv], out, err)  # the default interval: 6 s
    finally:
        replay.close()
    assert code == 1, err.getvalue()
    first, _, rest = out.getvalue().partition("\n")
    assert re.fullmatch(r"rmqplan status: the name server 127\.0\.0\.1:\d+: offsets read at .+ and again 6 s later",
                        first)
    assert rest == shown.partition("\n")[2]
