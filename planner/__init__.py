"""rmqplan: which process of a RocketMQ consumer group consumes which queue, predicted with the client's own rules.

The packages are layers; a module imports only from its own layer or the ones below it
(`tests/planner/test_layers.py` holds the order):

- `model`: the fleet as plain facts (brokers, topics, groups, processes and their client ids, routes, scenarios
  and their states) and what a simulation answers;
- `allocation`: who holds which queue: the strategies (`allocation.strategies`, transcribed from the client),
  the batch of rebalances and the one numpy kernel both engines run, the tally of orphaned, duplicated and idle
  queues, results, the fewest-moves plan and the comparison of strategies;
- `sources`: where a fleet comes from: fleet.toml, the code (through rmqlint), deployments, build files and a
  cluster's saved mqadmin output; and the fleet.toml written from them;
- `report`: findings (PLAN001...), text and JSON, the HTML page, the `--out` tables and `--plan` files, progress;
- `generated`: the synthetic fleets of `[generate]` at scale, as arrays, with their scenarios and findings;
- `engines`: the local engine (in-process, several processes for big fleets) and the Spark engine;
- the commands on top: `cli` (rmqplan), `check` / `check_cli` (rmqplan fleet, rmqplan check), `compare`
  (--compare-strategies, --plan) and `allocate` (rmqplan allocate).
"""
