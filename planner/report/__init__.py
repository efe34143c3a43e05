"""What rmqplan tells the user.

- `findings`: PLAN001... from results, worded;
- `render`: `rmqplan simulate`'s text and JSON, `summary.json`, and the all-or-nothing `--out` directory;
- `html`: the report page (`--html`);
- `out_tables`: the `--out` Parquet tables;
- `plan_out`: the `--plan` directory of CONFIG lists;
- `progress`: the status line on a terminal.
"""
