"""The synthetic fleets of `[generate]`: millions of groups drawn from a seed, never held as objects.

- `generate`: the groups, drawn the same way as numpy arrays (what the engines allocate) and in plain Python
  (what reports name and tests check against);
- `states`: their scenarios' states and moves, chunk by chunk;
- `findings`: their findings, worded for a whole chunk at once;
- `text`: their names as Arrow string arrays.
"""
