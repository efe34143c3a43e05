"""A fleet from what exists: the consumer groups the code declares, run by the processes the deployment starts,
over the brokers and queues the live cluster has (`rmqplan fleet`, and the first half of `rmqplan check`).

- **Code** (rmqlint's linked facts, the same frontends): every push or lite pull consumer of the remoting clients
  (Java `DefaultMQPushConsumer`/`DefaultLitePullConsumer`, Spring `@RocketMQMessageListener` and
  `rocketmq.pull-consumer`, Python 2.x `PushConsumer`) with its group, subscriptions, message model, allocation
  strategy, instanceName and unitName; the build module it lives in and the client release that module builds
  with. Topics the code produces to are topics too. 5.x gRPC consumers are left out: the proxy assigns their
  queues, not a client rebalance. Test sources are left out, and so is a group whose queues the code cannot
  predict (a strategy that allocates from data given at run time, or one rmqplan does not know), with a line.
  Python 2.x consumers run the C++ client, which names a process differently (`client = "cpp"`); a Go consumer
  (rocketmq-client-go v2's `NewPushConsumer`, `NewPullConsumer`, which rebalances as a push consumer does), or
  any consumer of a module whose go.mod requires rocketmq-client-go v2, runs Go's (`client = "go"`, the go.mod's
  release, else rmqplan's default Go release). Spring Cloud
  Alibaba's binder makes consumers from the configuration (`rmqlint.binder`), named as its release names
  them; a Spring starter release names its listeners' consumers too (`rmqlint.client_releases`).
- **Deployment** (`--deploy DIR`): the services matched to each consumer's module (`rmqplan.sources.services`)
  and their processes' IPs (`process_layout`: with host networking, the worst case Kubernetes allows unless
  `nodes` says how many nodes there are).
- **Cluster** (`--cluster DIR`, saved `mqadmin` outputs, or `--namesrv ADDR`, the live cluster: a
  `rmqplan.sources.cluster_source.ClusterSource`): brokers, permissions and queue counts; a group no deployment
  runs but that is connected now is modelled as connected; a group's consume progress, when the cluster gives it,
  is its `backlog`.

Every value keeps where it came from; a value nothing said is `Sourced.unknown` with the default chosen. A value
the code computes at run time (an instanceName from the environment) is unique per process, never guessed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Optional, Sequence

from rmqplan.sources.cluster_source import ClusterSource
from rmqplan.sources.fleet_entries import backlog_entry, cluster_entries, deployed_instances, live_instances
from rmqplan.sources.fleet_writer import (
    PlannedBroker,
    PlannedFleet,
    PlannedGroup,
    PlannedInstances,
    PlannedSubscription,
    PlannedTopic,
    Sourced,
)
from rmqplan.model.identity import CPP_CLIENT, GO_CLIENT, HOSTNAME_PLACEHOLDER, PID_PLACEHOLDER
from rmqplan.model.fleet import DEFAULT_CLIENT_VERSION, DEFAULT_GO_CLIENT_VERSION
from rmqplan.sources.buildfiles import GO_REMOTING_MODULE, BuildIndex, Module, read_build_files
from rmqplan.sources.deploy import DeployedService, read_deployments
from rmqplan.sources.cluster import ClusterSnapshot
from rmqplan.sources.origin import Origin
from rmqplan.sources.services import (
    ProcessLayout,
    ServiceMatching,
    configured_nodes,
    explicit_services,
    match_services,
    process_layout,
    service_names,
)
from rmqplan.model import words
from rmqplan.allocation.strategies import canonical_name, strategy_of

if TYPE_CHECKING:
    from rmqlint.binder import BinderConsumer

# Consumers whose queues a client-side rebalance assigns, by rmqlint's api names (the remoting clients).
REBALANCING_ROLES = ("push_consumer", "lite_pull_consumer")
REMOTING_APIS = ("java", "spring-listener", "spring-config", "python2", "go")
DEFAULT_QUEUES = 8  # `mqadmin updateTopic` creates 8 read and 8 write queues unless told
DEFAULT_BROKER = "broker-a"


@dataclass(frozen=True)
class Place:
    """A file and a line, relative to the code root: what a check finding is anchored at."""

    path: str
    line: int
    column: int = 1

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass
class Deployed:
    """One deployed service that runs a group's code, and how its processes are laid out."""

    service: DeployedService
    layout: ProcessLayout
    module: Module


@dataclass
class GroupOrigin:
    """Where a group of the written fleet came from: what `rmqplan check` words its findings with."""

    name: str
    consumers: list[Place] = field(default_factory=list)  # where the code creates each consumer of the group
    modules: list[str] = field(default_factory=list)  # module directories, relative to the code root
    instance_name: Optional[str] = None  # the fixed instanceName, when the code fixes one
    instance_name_at: Optional[Place] = None
    deployed: list[Deployed] = field(default_factory=list)
    live: bool = False  # modelled from the clients connected now


@dataclass
class FleetFromCode:
    planned: PlannedFleet
    groups: dict[str, GroupOrigin]
    problems: list[str] = field(default_factory=list)  # one line each: what could not be used, and where
    left_out: int = 0  # consumer groups found in the code but left out (each has its line in `problems`)
    manifests: int = 0  # deployment files read
    # what the fleet assumes because no input said it (the cluster's layout), one sentence each, for every report
    assumptions: list[str] = field(default_factory=list)


@dataclass
class _Consumer:
    path: str  # relative to the code root
    client: object  # rmqlint.facts.ClientFact, linked
    binder: Optional[BinderConsumer] = None  # made by Spring Cloud Alibaba's binder from configuration


def _lit(setting) -> Optional[str]:
    """The text of a setting whose value is one known literal, else None."""
    from rmqlint.values import Lit

    if setting is None or not isinstance(setting.value, Lit):
        return None
    return setting.value.text


def _place(path: str, location) -> Place:
    return Place(path, location.line, location.column)


def _consumers(code: Path, problems: list[str]) -> tuple[list[_Consumer], list[tuple[str, object]], object]:
    """The rebalancing consumers and the produced tags of the files under `code` (test sources left out), linked
    with the rest of their project (constants and configuration may live outside `code`)."""
    from rmqlint.binder import binder_consumers
    from rmqlint.discover import is_test_source
    from rmqlint.engine import load_project

    project, report = load_project(code, use_cache=False)
    root = Path(project.root)

    def shown(rel: str) -> str:
        return display(root / rel)

    consumers, produced = [], []
    for facts, client in project.clients():
        if facts.path not in report or is_test_source(facts.path) or client.role not in REBALANCING_ROLES:
            continue
        if client.api not in REMOTING_APIS:
            continue  # a 5.x gRPC consumer: the proxy assigns its queues
        consumers.append(_Consumer(shown(facts.path), client))
    binder, binder_problems = binder_consumers(project, report)
    consumers += [_Consumer(shown(made.path), made.client, made) for made in binder]
    problems += [f"{shown(p.partition(':')[0])}:{p.partition(':')[2]}" for p in binder_problems]
    for facts, tag in project.produced():
        if facts.path in report and not is_test_source(facts.path):
            produced.append((shown(facts.path), tag))
    for rel in sorted(report):
        facts = project.files.get(rel)
        for problem in facts.problems if facts is not None else ():
            problems.append(f"{shown(rel)}:{problem.location.line}: {problem.message}")
    return consumers, produced, project


def display(path: str | os.PathLike) -> str:
    """A path as the user opens it from the current directory: relative when inside it, else absolute."""
    absolute = os.path.abspath(path)
    here = os.getcwd()
    return os.path.relpath(absolute, here) if absolute == here or absolute.startswith(here.rstrip(os.sep) + os.sep) \
        else absolute


# Strategies whose allocation depends on data the client is given at run time, not on the code: a prediction with
# a made-up list or rooms would report queues as unread that the real list covers.
RUN_TIME_CONFIGURED = {
    "CONFIG": "AllocateMessageQueueByConfig allocates the queue list given to setMessageQueueList at run time",
    "MACHINE_ROOM": "AllocateMessageQueueByMachineRoom allocates by the consumer rooms given at run time",
    "MACHINE_ROOM_NEARBY": "AllocateMachineRoomNearby allocates by the machine room resolver it is given",
}


@dataclass(frozen=True)
class _Strategy:
    """A consumer's strategy as the fleet says it, or why its queues cannot be predicted (`unpredictable`)."""

    name: Optional[Sourced[str]]
    params: dict
    unpredictable: Optional[str] = None


def _strategy(consumer: _Consumer) -> _Strategy:
    client, path = consumer.client, consumer.path
    setting = client.allocate_strategy
    if setting is None:
        why = {"spring-listener": "the Spring container allocates averagely",
               "spring-config": "the Spring starter's pull consumer allocates averagely",
               "python2": "the Python 2.x client (the C++ core) allocates averagely",
               "go": "no consumer.WithStrategy: rocketmq-client-go's AllocateByAveragely"}.get(
            client.api, "no setAllocateMessageQueueStrategy: the client's AllocateMessageQueueAveragely")
        return _Strategy(Sourced.at("AVG", _place(path, client.location), why), {})
    where = _place(path, setting.location)
    text = _lit(setting)
    name = canonical_name(text) if text is not None else None
    if name is None:
        reason = getattr(setting.value, "reason", "a strategy object built elsewhere")
        what = f"strategy class {text!r} is not one rmqplan knows" if text else f"the strategy is {reason}"
        return _Strategy(None, {}, f"{where}: {what}")
    if name in RUN_TIME_CONFIGURED:
        return _Strategy(None, {}, f"{where}: {RUN_TIME_CONFIGURED[name]}")
    params: dict[str, Sourced] = {}
    argument = client.allocate_strategy_argument
    strategy = strategy_of(name)
    if strategy.params and argument is not None:
        key = strategy.params[0].key
        value = _lit(argument)
        if value is not None and value.lstrip("-").isdigit() and key == "virtual_nodes":
            params[key] = Sourced.at(int(value), _place(path, argument.location))
        else:
            params[key] = Sourced.unknown(strategy.params[0].default,
                                          f"{_place(path, argument.location)}: not a literal; the default")
    return _Strategy(Sourced.at(name, where), params)


def _model(consumer: _Consumer) -> Sourced[str]:
    setting = consumer.client.message_model
    if setting is None:
        return Sourced.at("clustering", _place(consumer.path, consumer.client.location), "the default")
    text = _lit(setting)
    if text is None or text.upper() not in ("CLUSTERING", "BROADCASTING"):
        return Sourced.unknown("clustering", f"{_place(consumer.path, setting.location)}: not a literal")
    return Sourced.at(text.lower(), _place(consumer.path, setting.location))


def _subscriptions(consumer: _Consumer, problems: list[str]) -> list[PlannedSubscription]:
    out = []
    for sub in consumer.client.subscriptions:
        where = _place(consumer.path, sub.location)
        topic = _lit_value(sub.topic)
        if topic is None:
            problems.append(f"{where}: the subscribed topic is not known from the code: left out")
            continue
        expression = _lit_value(sub.expression)
        if expression is None:
            out.append(PlannedSubscription(topic, "*", Sourced.unknown("", f"{where}: expression not known")))
        else:
            out.append(PlannedSubscription(topic, expression or "*", Sourced.at("", where)))
    return out


def _lit_value(value) -> Optional[str]:
    from rmqlint.values import Lit

    return value.text if isinstance(value, Lit) else None


def _version(module: Optional[Module]) -> Optional[Sourced[str]]:
    dep = module.client if module is not None else None
    if dep is None:
        return None
    version = dep.remoting_client_version
    where = dep.version_origin or dep.origin
    if version is None:
        return None
    via = f" ({dep.artifact} {dep.version})" if dep.artifact != "rocketmq-client" else ""
    return Sourced.at(version, where, f"rocketmq-client{via}")


def _go_release(module: Optional[Module]) -> Optional[Sourced[str]]:
    """A Go module's rocketmq-client-go v2 release (go.mod), or None: not a Go client's module. A release its go.mod
    does not fix is rmqplan's default Go release, said so."""
    dep = module.client if module is not None else None
    if dep is None or dep.artifact != GO_REMOTING_MODULE:
        return None
    if dep.version is None:
        return Sourced.unknown(DEFAULT_GO_CLIENT_VERSION, f"{dep.unknown}: rmqplan's default rocketmq-client-go")
    return Sourced.at(dep.version, dep.version_origin or dep.origin, dep.artifact)


def _unique_names(sets: list[PlannedInstances], why: str) -> list[PlannedInstances]:
    """A run-time instanceName (the pod's name, a UUID...) is one per process: one instance set per process,
    each with a name of its own."""
    out = []
    n = 0
    for planned in sets:
        count = planned.count.value if planned.count is not None else 1
        for _ in range(count):
            n += 1
            out.append(PlannedInstances(
                hosts=planned.hosts, instance_name=Sourced.unknown(f"process-{n}", f"{why}: unique per process"),
                unit_name=planned.unit_name, pid=planned.pid, client_version=planned.client_version,
                client=planned.client, note=planned.note if n == 1 else ""))
    return out


SAME_EVERYWHERE = "same-in-every-process"  # stands for a name the code makes alike in every process


def _run_time_names(sets: list[PlannedInstances], value, why: str) -> list[PlannedInstances]:
    """A name the code computes at run time is as unique as what it is made from (`Dynamic.per`): the host's name
    (on host networking the node's: shared by the processes reporting one IP), the pid (1 in every container), a
    text alike in every process (a class's name), or something unique per process (a UUID, the time; also what is
    not known)."""
    from rmqlint.values import Dynamic

    per = value.per if isinstance(value, Dynamic) else ""
    if per == "host":  # each process's host name, written as its host: the pod's, or on host networking the node's
        return [replace(planned, instance_name=Sourced(
            HOSTNAME_PLACEHOLDER, f"{why} from the host name: the pod's own on pod networking, the node's on host "
                                  "networking (the processes of one node share it)")) for planned in sets]
    if per == "pid":
        return [replace(planned, instance_name=Sourced(PID_PLACEHOLDER, f"{why} from the pid"))
                for planned in sets]
    if per == "none":  # a text not known here but the same in every process (a class's name): one stand-in for all
        return [replace(planned, instance_name=Sourced.unknown(
            SAME_EVERYWHERE, f"{why} from {value.reason}: the same text in every process")) for planned in sets]
    return _unique_names(sets, why)


def _starter_names(sets: list[PlannedInstances], module: Optional[Module], project) -> list[PlannedInstances]:
    """A Spring listener's consumer named by its starter release (`rmqlint.client_releases`): 2.2.0's
    `nameServer@pid` and 2.0.4-2.1.1's `accessKey|secretKey|group|pid` (with access keys configured) are the same
    in every container (pid 1); 2.0.3's container bean name and 2.0.2's `accessKey|secretKey|group` are the same in
    every process."""
    from rmqlint.client_releases import SPRING_STARTER, STARTER_KEYS, starter_made_name

    starter = next((d for d in module.dependencies if d.artifact == SPRING_STARTER), None) if module else None
    if starter is None or not starter.version:
        return sets
    directory = os.path.relpath(module.directory, project.root).replace(os.sep, "/")
    made = starter_made_name(starter.version, project.configures("" if directory == "." else directory,
                                                                 *STARTER_KEYS))
    if made is None or not made.per_container:
        return sets
    where = starter.version_origin or starter.origin
    return _made_names(sets, made, f"{SPRING_STARTER} {starter.version}", Place(display(where.path), where.line, 1))


def _made_names(sets: list[PlannedInstances], made, release: str, where: Place) -> list[PlannedInstances]:
    """The instance sets with the name a framework `release` gives its consumers (`MadeName`), written at
    `where`: fixed text as it is, a pattern with the pid with each process's pid."""
    out = []
    for planned in sets:
        if made.fixed:  # fixed text: the same in every process, whatever its pid
            out.append(replace(planned, instance_name=Sourced.at(made.pattern, where,
                                                                 f"{release} names it so in every process")))
            continue
        if planned.pid is None:
            out.append(planned)  # a process of its own pid: the name is as unique as the pid
            continue
        name = made.pattern.replace("pid", str(planned.pid.value))
        out.append(replace(planned, instance_name=Sourced.at(
            name, where, f"{release} names it {made.pattern}, pid {planned.pid.value}")))
    return out


def fleet_from_code(code: str | os.PathLike, deploy: Sequence[str | os.PathLike] = (),
                    cluster: Optional[str | os.PathLike | ClusterSource] = None,
                    nodes: Optional[int] = None) -> FleetFromCode:
    """The fleet the code, its deployment and its cluster (a saved outputs directory or a `ClusterSource`)
    describe. Paths are shown from the current directory. A live cluster that cannot be read raises
    `rmqplan.sources.cluster_source.ClusterSourceError`."""
    if cluster is not None and not isinstance(cluster, ClusterSource):
        cluster = ClusterSource(directory=os.fspath(cluster))
    if cluster is not None and not cluster.given():
        cluster = None
    problems: list[str] = []
    root = Path(code)
    consumers, produced, project = _consumers(root, problems)
    index: BuildIndex = read_build_files(root)
    problems += [str(p) for p in index.problems]
    deployment = read_deployments(*deploy) if deploy else None
    services: list[DeployedService] = deployment.services if deployment is not None else []
    if deployment is not None:
        problems += [str(p) for p in deployment.problems]
    explicit, explicit_problems = explicit_services(root / "pyproject.toml")
    problems += [str(p) for p in explicit_problems]
    if nodes is None:
        nodes, nodes_problems = configured_nodes(root / "pyproject.toml")
        problems += [str(p) for p in nodes_problems]
    loose = _directory_modules(consumers, index)  # consumers' directories without a build file
    matching = match_services(services, [*index.modules, *loose.values()], root, explicit)
    problems += [str(p) for p in matching.problems]
    snapshot: Optional[ClusterSnapshot] = None
    if cluster is not None:  # live: only what the code names (its groups, the topics it reads and writes)
        named_groups = [g for g in (_lit(c.client.group) for c in consumers) if g is not None]
        named_topics = [t for t in (_lit_value(sub.topic) for c in consumers for sub in c.client.subscriptions)
                        if t is not None]
        named_topics += [t for t in (_lit_value(tag.topic) for _, tag in produced) if t is not None]
        snapshot = cluster.read(groups=named_groups, topics=named_topics)
    if snapshot is not None:
        problems += [str(p) for p in snapshot.problems]

    groups: dict[str, PlannedGroup] = {}
    origins: dict[str, GroupOrigin] = {}
    modules_done: dict[str, set[str]] = {}
    left_out: set[str] = set()  # groups found but not modelled (each with its line in `problems`)
    undeployed: dict[str, tuple[Module, list[str]]] = {}  # module directory -> (module, its groups) no workload runs
    for consumer in consumers:
        client = consumer.client
        name = _lit(client.group)
        where = _place(consumer.path, client.location)
        if name is None:
            problems.append(f"{where}: the consumer group is not known from the code: left out")
            continue
        if name in left_out:
            continue
        group = groups.get(name)
        if group is None and consumer.binder is not None and consumer.binder.strategy_bean is not None:
            bean = consumer.binder.strategy_bean
            problems.append(f"{display(os.path.join(project.root, bean.path))}:{bean.line}: group {name}'s queues "
                            "cannot be predicted from the configuration (the binder takes the strategy bean it "
                            "names): left out")
            left_out.add(name)
            continue
        if group is None:
            strategy = _strategy(consumer)
            if strategy.unpredictable is not None:
                problems.append(f"{strategy.unpredictable}: group {name}'s queues cannot be predicted from the code: "
                                "left out")
                left_out.add(name)
                continue
            group = PlannedGroup(Sourced.at(name, _place(consumer.path, client.group.location)), _model(consumer),
                                 strategy.name, [], [], params=strategy.params)
            groups[name] = group
        origin = origins.setdefault(name, GroupOrigin(name))
        origin.consumers.append(where)
        for sub in _subscriptions(consumer, problems):
            if all(s.topic != sub.topic for s in group.subscriptions):
                group.subscriptions.append(sub)
        module = index.module_of(consumer.path) or loose[loose_directory(consumer.path)]
        module_dir = display(module.directory)
        if module_dir in modules_done.setdefault(name, set()):
            continue  # one module's processes run all of its consumers of the group
        modules_done[name].add(module_dir)
        origin.modules.append(module_dir)
        fixed = _lit(client.instance_name)
        instance_name = None
        if fixed is not None and fixed != "DEFAULT":
            instance_name = Sourced.at(fixed, _place(consumer.path, client.instance_name.location), "fixed")
            origin.instance_name, origin.instance_name_at = fixed, _place(consumer.path, client.instance_name.location)
        unit = _lit(client.unit_name)
        unit_name = Sourced.at(unit, _place(consumer.path, client.unit_name.location)) if unit else None
        version = _version(module)
        go_release = _go_release(module)
        if client.api == "python2":  # the C++ client names the process; its version is the Python package's
            version = None
            own_client = Sourced.at(CPP_CLIENT, where, "the Python 2.x client runs the C++ client, which reports "
                                                       "ip@pid#instanceName")
        elif go_release is not None or client.api == "go":  # rocketmq-client-go v2: its own ids and strategy code
            version = go_release or Sourced.unknown(DEFAULT_GO_CLIENT_VERSION, "no go.mod requiring "
                                                    "rocketmq-client-go v2: rmqplan's default rocketmq-client-go")
            own_client = Sourced.at(GO_CLIENT, where, "rocketmq-client-go v2 reports ip@pid and computes its share "
                                                      "with its own strategy code")
        else:
            own_client = None
            if version is None:  # it decides how a default instanceName becomes the pid: say which one is assumed
                version = Sourced.unknown(DEFAULT_CLIENT_VERSION, "no RocketMQ client release found in the build "
                                                                  "files: rmqplan's default")
        was_live = origin.live
        sets = _instances(name, module, module_dir, matching, snapshot, nodes, instance_name, unit_name, version,
                          origin, problems)
        if own_client is not None and origin.live == was_live:  # connected clients: modelled by the ids they report
            sets = [replace(s, client=own_client) for s in sets]
        if client.role == "lite_pull_consumer" and client.api != "go" and origin.live == was_live:
            kind = Sourced.at("lite_pull", where, "a DefaultLitePullConsumer: it ends its client id with @STREAM "
                                                  "from 4.9.4 on and has no retry topic")
            sets = [replace(s, consumer=kind) for s in sets]
        if client.instance_name is not None and fixed is None:
            sets = _run_time_names(sets, client.instance_name.value,
                                   f"{_place(consumer.path, client.instance_name.location)} sets the instanceName "
                                   "at run time")
        elif client.instance_name is None and client.api == "spring-listener":
            sets = _starter_names(sets, module, project)
        elif consumer.binder is not None and consumer.binder.made is not None and consumer.binder.made.per_container:
            release = consumer.binder.release
            sets = _made_names(sets, consumer.binder.made, f"{release.artifact} {release.version}",
                               Place(display(os.path.join(project.root, release.location.path)),
                                     release.location.line, 1))
        group.instances.extend(sets)
        if deployment is not None and not origin.live and not matching.services_of(module):
            undeployed.setdefault(module_dir, (module, []))[1].append(name)

    if deployment is not None:
        problems += _unmatched(matching, undeployed, root, deploy)
    for name, group in list(groups.items()):
        if not group.subscriptions:  # nothing to rebalance (topics from run time, or queues assigned by hand)
            problems.append(f"{origins[name].consumers[0]}: group {name} subscribes to no topic known from the code: "
                            "left out")
            del groups[name], origins[name]
            left_out.add(name)
        elif snapshot is not None and name in snapshot.progress:
            group.backlog = backlog_entry(snapshot.progress[name], [s.topic for s in group.subscriptions])
    topics_needed: list[str] = []
    for group in groups.values():
        for sub in group.subscriptions:
            if sub.topic not in topics_needed:
                topics_needed.append(sub.topic)
    for path, tag in produced:
        topic = _lit_value(tag.topic)
        if topic is not None and topic not in topics_needed:
            topics_needed.append(topic)
    assumptions: list[str] = []
    brokers, topics = _routes(topics_needed, snapshot, cluster, assumptions)
    header = [f"Written by rmqplan fleet from {display(root)}"
              + (f", the deployment in {', '.join(map(display, deploy))}" if deploy else "")
              + (f" and {_cluster_words(cluster)}" if cluster else "") + "."]
    header += [f"Assumed: {line}." for line in assumptions]
    planned = PlannedFleet(brokers, topics, list(groups.values()), header=header)
    return FleetFromCode(planned, origins, problems, left_out=len(left_out),
                         manifests=deployment.files if deployment is not None else 0, assumptions=assumptions)


def loose_directory(path: str) -> str:
    """The module directory of a file no build file claims, as `rmqlint graph` finds it (the directory above
    `src/main` or `src/test`, else the file's), kept a path: absolute when `path` is, `.` for the current one."""
    parts = PurePosixPath(path).parts
    for i in range(len(parts) - 1):
        if parts[i] == "src" and parts[i + 1] in ("main", "test"):
            return str(PurePosixPath(*parts[:i])) if i else "."
    return str(PurePosixPath(path).parent)


def _directory_modules(consumers: list[_Consumer], index: BuildIndex) -> dict[str, Module]:
    """A module for each directory holding consumers but no build file (`loose_directory`), named by its last part,
    as `rmqlint graph` names it; workloads match it by that name like any other."""
    out: dict[str, Module] = {}
    for consumer in consumers:
        if index.module_of(consumer.path) is None:
            directory = loose_directory(consumer.path)
            name = os.path.basename(os.path.abspath(directory))
            out.setdefault(directory, Module(directory, "", name, Origin(directory)))
    return out


def _unmatched(matching: ServiceMatching, undeployed: dict, root: Path, deploy: Sequence) -> list[str]:
    """Every workload that runs none of the code's modules, and every module with consumers that no workload runs,
    each with how to map it; nothing is left to silence. A workload several modules match has its line already."""
    pyproject = display(root / "pyproject.toml")
    lines = []
    for service in matching.unmatched:
        if service in matching.ambiguous:
            continue
        names = ", ".join(sorted(service_names(service)))
        lines.append(f"{service.origin}: {service.kind} {service.name} runs none of the code's modules (its names: "
                     f"{names}); if it runs one, map it in {pyproject}: [tool.rmqplan.services] "
                     f"\"{service.name}\" = \"<module directory>\"")
    for module_dir, (module, groups) in undeployed.items():
        mapped = os.path.relpath(os.path.abspath(module.directory), os.path.abspath(root)).replace(os.sep, "/")
        lines.append(f"{module_dir}: no workload of {', '.join(map(display, deploy))} runs this module (name "
                     f"{module.name}; consumer {words.noun(len(groups), 'group')} {', '.join(groups)}): modelled as "
                     f"one process; if one runs it, map it in {pyproject}: [tool.rmqplan.services] "
                     f"\"<workload name>\" = \"{mapped}\"")
    return lines


def _cluster_words(cluster: ClusterSource) -> str:
    if cluster.namesrv is not None:
        return f"the live cluster of {cluster.namesrv}"
    return f"the cluster outputs in {display(cluster.directory)}"


def _instances(group: str, module: Optional[Module], module_dir: str, matching, snapshot, nodes, instance_name,
               unit_name, version, origin: GroupOrigin, problems: list[str]) -> list[PlannedInstances]:
    matched = [m for m in matching.matches if module is not None and m.module is module]
    sets: list[PlannedInstances] = []
    for match in matched:
        service = match.service
        layout = process_layout(service, nodes)
        if layout is None:
            problems.append(f"{service.replicas_origin}: {service.kind} {service.name}: the number of replicas is "
                            f"not known ({service.replicas_note or 'not written'}): 1 assumed")
            layout = process_layout(service, nodes, replicas=1)
        origin.deployed.append(Deployed(service, layout, match.module))
        note = (f"{module_dir}: {service.kind} {service.name} ({service.origin}, matched by {match.how}): "
                f"{layout.why}")
        sets += deployed_instances(service, layout, instance_name=instance_name, unit_name=unit_name,
                                   client_version=version, note=note)
    if sets:
        return sets
    live = snapshot.consumers.get(group) if snapshot is not None else None
    if live is not None and live.connections:
        origin.live = True
        return live_instances(live)
    return [PlannedInstances(
        hosts=Sourced.unknown([f"{os.path.basename(module_dir.rstrip('/')) or 'app'}-host"],
                              f"no deployment runs {module_dir}: one process"),
        instance_name=instance_name, unit_name=unit_name, client_version=version,
        note=f"{module_dir}: not deployed by any manifest read")]


GIVE_LAYOUT = ("give the real layout with --cluster DIR (saved mqadmin outputs: topicRoute-<Topic>.json, "
               "clusterList.txt) or --namesrv ADDR")


def _routes(topics: list[str], snapshot: Optional[ClusterSnapshot], cluster: Optional[ClusterSource],
            assumptions: list[str]) -> tuple[list[PlannedBroker], list[PlannedTopic]]:
    """The brokers and topics, from the cluster when it gives them; what it does not give is assumed (one broker,
    `mqadmin updateTopic`'s 8 queues), marked unknown in the fleet and said, one line each, in `assumptions`."""
    if snapshot is not None and (snapshot.routes or snapshot.brokers):
        brokers, planned = cluster_entries(snapshot, topics=topics)
        have = {t.name.value for t in planned}
        if not brokers:
            brokers = [PlannedBroker(Sourced.unknown(DEFAULT_BROKER, "no broker in the saved outputs: one"))]
            assumptions.append(f"one broker \"{DEFAULT_BROKER}\", since {_cluster_words(cluster)} name none")
        unrouted = []
        for topic in topics:
            if topic not in have:
                why = (f"{snapshot.missing_topics[topic]}: the name server has no route"
                       if topic in snapshot.missing_topics else "no saved topicRoute")
                planned.append(PlannedTopic(Sourced.unknown(topic, why),
                                            Sourced.unknown(DEFAULT_QUEUES, f"{why}: mqadmin updateTopic's default")))
                unrouted.append(topic)
        if unrouted:
            where = ("the name server has no route" if cluster is not None and cluster.namesrv is not None
                     else f"no topicRoute-<Topic>.json in {display(cluster.directory)}" if cluster is not None
                     else "no route")
            assumptions.append(f"{DEFAULT_QUEUES} read and {DEFAULT_QUEUES} write queues on every broker for "
                               f"{words.noun(len(unrouted), 'topic')} {', '.join(unrouted)} (mqadmin updateTopic's "
                               f"default), since {where}")
        order = {t: i for i, t in enumerate(topics)}
        planned.sort(key=lambda t: order.get(t.name.value, len(order)))
        return brokers, planned
    if topics:
        since = (f"{_cluster_words(cluster)} hold no route and no broker" if cluster is not None
                 else "no --cluster or --namesrv was given")
        assumptions.append(f"one broker \"{DEFAULT_BROKER}\" with {DEFAULT_QUEUES} read and {DEFAULT_QUEUES} write "
                           f"queues per topic (mqadmin updateTopic's default), since {since}: the queue numbers are "
                           f"an example; {GIVE_LAYOUT}")
    brokers = [PlannedBroker(Sourced.unknown(DEFAULT_BROKER, "no --cluster: one broker"))]
    return brokers, [PlannedTopic(Sourced.at(t, "the code"), Sourced.unknown(
        DEFAULT_QUEUES, "no --cluster: mqadmin updateTopic's default")) for t in topics]
