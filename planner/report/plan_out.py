"""`rmqplan simulate --plan DIR`: the assignment that reaches the minimum (`rmqplan.compare`), written as
`AllocateMessageQueueByConfig` lists a user can load into the client.

Layout (all or nothing, like `--out`; an existing DIR is replaced only when it is empty or holds a `plan.json`):

    DIR/plan.json                                   what is where: per scenario and group, each state's moves
                                                    and one file per process
    DIR/<scenario>/<group>/<instance>.json          a one-state scenario (and the baseline: the balanced
                                                    assignment nearest to the current one)
    DIR/<scenario>/<group>/<NN>-<step>/<instance>.json   each step of a rolling restart
    .../index.json                                  beside the processes' files: which file is whose

Every file and directory name is made of `A-Z a-z 0-9 . _ -` alone, at most 130 characters, so a state's folder
becomes a Kubernetes ConfigMap as it is (`kubectl create configmap --from-file=DIR/<scenario>/<group>`, whose keys
must match `[-._a-zA-Z0-9]+`): a label `10.0.0.5#1` is the file `10.0.0.5_1.json`. Names that the replacement
(or a case-insensitive file system) would make equal get `-2`, `-3`... in the order of the processes, so the names
are the same on every run. `index.json` lists each process of the folder (`instance`, `client_id`, `host`, `file`:
the name in the folder), as `plan.json` does with paths from DIR: a pod finds its file by its client id or host.

A process's file is a JSON array of `{"topic", "brokerName", "queueId"}` objects, MessageQueue's own property
names, in RocketMQ order: every queue the process should hold, over all the topics of its group (its retry topic
included). The client hands a CONFIG strategy's list to the rebalance of each of those topics, and each keeps its
own topic's queues, so one list per process is the whole plan. Loading it is one line with the fastjson the client
ships with (`JSON.parseArray(text, MessageQueue.class)`) or with Jackson; see the README.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from rmqplan.allocation.comparison import Comparison

PLAN_INDEX = "plan.json"
FOLDER_INDEX = "index.json"  # in each state's folder, beside the processes' files
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")  # what a ConfigMap key may not hold


def queue_objects(queues) -> list[dict]:
    return [{"topic": q.topic, "brokerName": q.broker, "queueId": q.queue_id} for q in queues]


def config_list_json(queues) -> str:
    """A JSON array of MessageQueue objects, one a line."""
    items = [json.dumps(item, ensure_ascii=False) for item in queue_objects(queues)]
    return "[\n" + ",\n".join(f"  {item}" for item in items) + ("\n]\n" if items else "]\n")


def safe_name(text: str) -> str:
    """A file or directory name for a scenario, group, step or process label: ConfigMap-key characters only."""
    name = _UNSAFE.sub("_", text).strip(".") or "_"
    return name[:120]


def _unique(name: str, taken: set[str]) -> str:
    candidate, n = name, 2
    while candidate.lower() in taken:
        candidate, n = f"{name}-{n}", n + 1
    taken.add(candidate.lower())
    return candidate


def write_plan(directory: Path, fleet_path: str, comparisons: list[Comparison]) -> int:
    """Every comparison's plan under `directory` (an empty staging directory); returns the files written."""
    index = {"fleet": fleet_path, "plans": []}
    files = 0
    scenario_dirs: dict[str, str] = {}
    taken_scenarios: set[str] = set()
    taken_groups: dict[str, set[str]] = {}  # per scenario folder: groups named alike once unsafe characters go
    for c in comparisons:
        scenario_dir = scenario_dirs.get(c.scenario)
        if scenario_dir is None:
            scenario_dir = scenario_dirs[c.scenario] = _unique(safe_name(c.scenario), taken_scenarios)
        group_dir = Path(scenario_dir) / _unique(safe_name(c.group), taken_groups.setdefault(scenario_dir, set()))
        entry = {"scenario": c.scenario, "group": c.group, "minimum_moves": c.minimum, "states": []}
        width = len(str(len(c.plan)))
        for state in c.plan:
            folder = group_dir if len(c.plan) == 1 else group_dir / f"{state.step:0{width}d}-{safe_name(state.name)}"
            (directory / folder).mkdir(parents=True, exist_ok=True)
            taken = {FOLDER_INDEX.removesuffix(".json")}
            processes, here = [], []
            for p in state.processes:
                name = _unique(safe_name(p.instance), taken) + ".json"
                queues = state.queues.get(p.instance, [])
                (directory / folder / name).write_text(config_list_json(queues), encoding="utf-8")
                files += 1
                who = {"instance": p.instance, "client_id": p.client_id, "host": p.host}
                processes.append({**who, "file": (folder / name).as_posix(), "queues": len(queues)})
                here.append({**who, "file": name})
            (directory / folder / FOLDER_INDEX).write_text(json.dumps({"processes": here}, indent=2,
                                                                      ensure_ascii=False) + "\n", encoding="utf-8")
            files += 1
            entry["states"].append({"step": state.step, "name": state.name, "moves": state.moves,
                                    "directory": folder.as_posix(), "index": (folder / FOLDER_INDEX).as_posix(),
                                    "processes": processes})
        index["plans"].append(entry)
    (directory / PLAN_INDEX).write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")
    return files + 1
