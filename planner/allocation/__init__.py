"""Who holds which queue, exactly as every process of a group computes it.

- `strategies`: one module per allocation strategy, transcribed from the client (the oracle), each with its
  vectorised form over a batch;
- `batch`: rebalances as flat arrays (queues, client ids, strategies) and the rows an allocation returns;
- `kernel`: the one allocation over a batch that both engines run;
- `tally`: orphaned, duplicated and idle counts of a batch's rows;
- `rebalances`: a fleet's baseline and scenario states as rebalances, and the batch of them;
- `results`: rows back into per group and topic results;
- `min_moves`: the fewest moves any balanced assignment makes through a scenario;
- `comparison`: a group's scenarios under each strategy beside that minimum.
"""
