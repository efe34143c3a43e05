"""The fleet as the planner sees it: plain, validated, immutable facts, and what a simulation answers.

- `fleet`: brokers, topics, groups, instance sets, scenarios, `[generate]`, processes;
- `identity`: client ids as each client release makes them, and instance sets expanded into processes;
- `javaorder`: Java's string order (UTF-16 code units), which the client sorts queues and client ids by;
- `routes`: each topic's readable and writable queues, retry topics;
- `scenarios`: how a queue changes hands between two states, and a scenario's rollout;
- `states`: a scenario's steps, each a view of the fleet and the groups it touches;
- `simulation`: per group and topic results, moves, steps, the options a run is asked with.
"""
