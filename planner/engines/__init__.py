"""Where the allocation runs. Both engines run the same kernel (`rmqplan.allocation.kernel`) and give the same
answer.

- `local`: in-process, and a pool of processes for big generated fleets (`chunks`, `chunk_tasks`, `cpus`,
  `heap`, `arrow_start`);
- `spark`: PySpark (`mapInArrow` over Arrow batches, `spark_arrow`; the session in `spark_session`);
- `choice`: which engine `--engine auto` picks, and how long a run should take.
"""
