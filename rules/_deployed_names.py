"""RMQ001's findings that come from the build and the deployment rather than from a name written in code: a client
id that a client or framework release makes the same in every container, and a name made from the host, on a
deployment where replicas share an IP (`rmqlint.project.Placement`: host networking, several replicas per node).

A client id is `ip@instanceName`. Every container's process is pid 1, so a name made of the pid and fixed text is
the same in each container; replicas that also share the IP (host networking puts the replicas on one node on the
node's address) then report one client id (`rmqlint.client_releases` says which release makes which name). The host
name is the node's on host networking, so a name made from it is shared by the replicas on one node too.

rocketmq-client-go reports `ip@pid` in every release when the code names no instance: the same in every container.
Before 4.9.0 the client's address selection (`RemotingUtil.getLocalAddress`) does not skip bridge interfaces: on
host networking a node that also runs Docker may make the client report the bridge's `172.17.0.1`, the same on
every node. It is said in the message, not reported by itself: whether a node has such a bridge is not in the
repository.
"""

from __future__ import annotations

from dataclasses import dataclass

from rmqlint.client_releases import (BINDER_KEYS, CLOUD_BINDER, GO_CLIENT, REMOTING_CLIENT, SPRING_STARTER,
                                     STARTER_KEYS, MadeName, binder_made_name, client_default_name, go_default_name,
                                     starter_made_name, version_tuple)
from rmqlint.binder import binder_consumers
from rmqlint.facts import ClientFact, Location
from rmqlint.findings import Related, message
from rmqlint.project import Module, Placement, Project, Release
from rmqlint.text import canonical_key
from rmqlint.values import Dynamic, alternatives
from rmqlint.rules._consumers import BROADCASTING, CLUSTERING, GRPC_APIS, REBALANCING_ROLES, describe_group, \
    message_model

_HOST_SAYS = {"host": "the host name (or address), which on host networking is the node's",
              "pid": "the pid, which is 1 in every container"}


@dataclass(frozen=True)
class DeployedCollision:
    message: tuple  # parts (`rmqlint.findings.message`): the deployment is cited where the finding is elsewhere
    location: Location
    related: tuple[Related, ...]


def deployed_collisions(project: Project) -> list[DeployedCollision]:
    found: list[DeployedCollision] = []
    if not project.deploys:
        return found
    for module in project.modules:
        shared = [p for p in module.placements if p.per_ip > 1]
        if not shared:
            continue
        placement = max(shared, key=lambda p: p.per_ip)
        consumers = [c for _f, c in project.clients() if project.module_of(c.location.path) is module
                     and c.role in REBALANCING_ROLES and c.api not in GRPC_APIS and message_model(c) == CLUSTERING]
        by_release: dict[tuple, list[ClientFact]] = {}
        python: list[ClientFact] = []
        for client in consumers:
            if client.instance_name is not None:
                collision = _made_from_host(client, placement)
                if collision is not None:
                    found.append(collision)
                continue
            if client.api == "python2":
                python.append(client)
                continue
            cause = _cause(project, module, client)
            if cause is not None:
                by_release.setdefault(cause, []).append(client)
        for (release, made, via), clients in by_release.items():
            found.append(_release_collision(release, made, via, clients, placement))
        if python:
            found.append(_python_collision(python, placement))
        binder = module.release(CLOUD_BINDER)
        if binder is not None and binder.version and _binder_consumes(project, module):
            made = binder_made_name(binder.version, _configured(project, module, BINDER_KEYS))
            if made is not None and made.per_container:
                found.append(_release_collision(binder, made, "", [], placement))
    return found


def _python_collision(clients: list[ClientFact], placement: Placement) -> DeployedCollision:
    """The Python 2.x client (the C++ core) reports `ip@pid#instanceName`, `DEFAULT` when not set."""
    text = (f"the Python 2.x client reports ip@pid#instanceName, with the pid 1 in every container and the default "
            f"name DEFAULT: {placement.service} runs {placement.why}, so up to {placement.per_ip} processes report "
            "one client id, consume the same queues, and leave other queues to nobody; set each replica's "
            "instanceName to the pod's name from the downward API (or a UUID)")
    related = tuple(Related(c.location, f"clustering consumer {describe_group(c)}") for c in clients[:3])
    return DeployedCollision(message(text), placement.location, related)


def _cause(project: Project, module: Module, client: ClientFact) -> tuple[Release, MadeName, str] | None:
    """The release that names this consumer the same in every container, the name, and how (for messages)."""
    if client.api == "spring-listener":
        starter = module.release(SPRING_STARTER)
        if starter is None or not starter.version:
            return None
        keys = _configured(project, module, STARTER_KEYS) or _listener_keys(project, client)
        made = starter_made_name(starter.version, keys)
        if made is not None:
            return (starter, made, "") if made.per_container else None
        if version_tuple(starter.version) is not None and version_tuple(starter.version) >= (2, 2, 3):
            return None  # the annotation's DEFAULT: the client's default, unique per process on its 5.x client
        default = client_default_name(starter.client_version)
        return (starter, default, f"rocketmq-client {starter.client_version}") \
            if default is not None and default.per_container else None
    if client.api == "go":  # rocketmq-client-go reports ip@pid in every release: any v2 release in go.mod
        release = module.release(GO_CLIENT)
        return (release, go_default_name(), "") if release is not None else None
    if client.api == "java":
        release = module.release(REMOTING_CLIENT, SPRING_STARTER)
        default = client_default_name(release.client_version) if release is not None else None
        if default is None or not default.per_container:
            return None
        via = f"rocketmq-client {release.client_version}" if release.artifact != REMOTING_CLIENT else ""
        return release, default, via
    return None


def _release_collision(release: Release, made: MadeName, via: str, clients: list[ClientFact],
                       placement: Placement) -> DeployedCollision:
    what = f"{release.artifact} {release.version}" + (f" (which runs {via})" if via else "")
    name = f"the client's default instance name, the {made.pattern}" if made.pattern == "pid" else \
        f"the instance name {made.pattern}"
    fix = _fix(release, made)
    same = "the same in every process (it holds no pid)" if made.fixed else \
        "the same in every container (each one's process is pid 1)"
    text = (f" runs {placement.why}, so up to {placement.per_ip} processes report one IP and one client id, consume "
            "the same queues, and leave other queues to nobody")
    if made.holds_secret:
        text += "; the name also holds the secret key, which every broker then logs with the client id"
    if placement.host_network and release.artifact == GO_CLIENT:
        text += ("; rocketmq-client-go reports the address of the first network interface that is up, Docker's "
                 "bridge 172.17.0.1 included, so replicas on different nodes can collide too")
    elif placement.host_network and _before(release, (4, 9, 0)):
        text += ("; clients before 4.9.0 may also report Docker's bridge address 172.17.0.1 on every node of host "
                 "networking, so replicas on different nodes can collide too")
    text += f"; {fix}"
    related = [Related(placement.location, f"{placement.service}: {placement.per_ip} processes may share one IP")]
    related += [Related(c.location, f"clustering consumer {describe_group(c)}") for c in clients[:3]]
    parts = message(f"{what} gives every clustering consumer {name}, {same}: {placement.service} at ",
                    placement.location, text)
    return DeployedCollision(parts, release.location, tuple(related))


def _fix(release: Release, made: MadeName) -> str:
    if release.artifact == SPRING_STARTER and made.pattern != "pid":
        return "upgrade the starter (2.2.3 and later leave the name to the client, unique per process)"
    if release.artifact == GO_CLIENT:
        return ("name each replica by the pod's name (consumer.WithInstance(os.Getenv(\"POD_NAME\")), the downward "
                "API's metadata.name): every rocketmq-client-go release reports ip@pid")
    if release.artifact == CLOUD_BINDER:
        return "upgrade Spring Cloud Alibaba (2021.0.5.0 and later add System.nanoTime() and leave the secret out)"
    return "upgrade the client to 4.9.0 or later (it names a consumer pid#nanoTime), or set each replica's name to " \
           "the pod's name from the downward API"


def _before(release: Release, version: tuple[int, ...]) -> bool:
    client = version_tuple(release.client_version)
    return client is not None and client < version


def _made_from_host(client: ClientFact, placement: Placement) -> DeployedCollision | None:
    """A name made from the host (or the pid) alone: shared by the replicas on one IP."""
    values = alternatives(client.instance_name.value)
    pers = {value.per if isinstance(value, Dynamic) else "fixed" for value in values}
    if not pers <= {"host", "pid"} or not pers:
        return None
    if "host" in pers and not placement.host_network:
        return None  # each pod its own host name
    said = " and ".join(_HOST_SAYS[p] for p in sorted(pers))
    parts = message(
        f"the instanceName of clustering consumer {describe_group(client)} is made from {said}: {placement.service} "
        "at ", placement.location, f" runs {placement.why}, so up to {placement.per_ip} replicas report one IP and "
        "one client id, consume the same queues, and leave other queues to nobody; name each replica by the pod's "
        "name (the downward API's metadata.name, e.g. a POD_NAME variable), which is unique per pod")
    related = (Related(placement.location, f"{placement.service}: {placement.per_ip} processes may share one IP"),)
    return DeployedCollision(parts, client.instance_name.location, related)


def _configured(project: Project, module: Module, keys: tuple[str, ...]) -> bool:
    return project.configures(module.directory, *keys)


def _listener_keys(project: Project, client: ClientFact) -> bool:
    return any(c.location == client.location and c.access_key is not None and c.secret_key is not None
               for _f, c in project.connections())


def _binder_consumes(project: Project, module: Module) -> bool:
    """The module's configuration binds an input with a consumer group (`spring.cloud.stream.bindings.x.group`)
    that is not known to be broadcasting (a broadcasting consumer takes every queue: its client id splits none)."""
    if not any(key.startswith(canonical_key("spring.cloud.stream.bindings.")) and key.endswith(".group")
               for key in project.config_keys(module.directory)):
        return False
    made, _left_out = binder_consumers(project)
    known = [b for b in made if project.module_of(b.path) is module]
    groups = sum(1 for key in project.config_keys(module.directory)
                 if key.startswith(canonical_key("spring.cloud.stream.bindings.")) and key.endswith(".group"))
    return len(known) < groups or any(message_model(b.client) != BROADCASTING for b in known)
