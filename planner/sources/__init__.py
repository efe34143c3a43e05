"""Readers of what exists outside fleet.toml, for `rmqplan fleet` and `rmqplan check`.

- `planner.sources.mqadmin`: a live cluster, from saved `mqadmin` outputs (topic routes, cluster list,
  consumer connections);
- `planner.sources.deploy`: deployments, from Kubernetes manifests and docker-compose files;
- `planner.sources.buildfiles`: the RocketMQ client version a module builds with (Maven, Gradle, Python).

Each reader returns plain dataclasses whose values carry an `Origin` (file and line), and a list of
`SourceProblem`s: one line each, file:line and what is wrong. A reader never raises on bad input.
"""
