"""Where a fleet comes from: fleet.toml (`fleet_file`), or what exists outside it, for `rmqplan fleet` and
`rmqplan check`: the code (`from_code`, through rmqlint), deployments and a cluster, turned into fleet entries
(`fleet_entries`) and written as fleet.toml (`fleet_writer`). The readers:

- `rmqplan.sources.mqadmin`: a live cluster, from saved `mqadmin` outputs (topic routes, cluster list,
  consumer connections; fastjson's relaxed JSON in `relaxed_json`);
- `rmqplan.sources.deploy`: deployments, from Kubernetes manifests and docker-compose files (YAML with the line
  of every key, `yaml_lines`);
- `rmqplan.sources.buildfiles`: the modules of a repository and the RocketMQ client each builds with (Maven,
  Gradle, Python);
- `rmqplan.sources.services`: which deployed service runs which module, and the IP each of its processes reports.

Each reader returns plain dataclasses whose values carry an `Origin` (file and line), and a list of
`SourceProblem`s: one line each, file:line and what is wrong. A reader never raises on bad input.
"""
