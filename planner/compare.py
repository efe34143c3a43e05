"""`rmqplan simulate --compare-strategies` and `--plan DIR` as the command runs them: the comparison
(`rmqplan.allocation.comparison`) on the chosen engine, rendered as text and JSON, and the plan written."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from rmqplan.allocation.comparison import COUNTED, Comparison, compare, run_name
from rmqplan.model.fleet import Fleet
from rmqplan.model.words import count
from rmqplan.report.render import REPORT_WIDTH, wrapped
from rmqlint.printable import printable


def to_json(comparisons: list[Comparison]) -> list[dict]:
    """The `strategies` of `--format json`: per group and scenario, each strategy's moves and problems beside the
    minimum, and the summary line."""
    out = []
    for c in comparisons:
        out.append({
            "group": c.group, "scenario": c.scenario, "steps": c.steps, "queues": c.queues,
            "queues_before": c.queues_before, "queues_after": c.queues_after,
            "strategies": [{"strategy": r.strategy, "own": r.own, "moves": r.moves,
                            "duplicate_risk_moves": r.duplicate_risk_moves, "pause_moves": r.pause_moves,
                            "orphaned": r.orphaned, "duplicated": r.duplicated, "idle": r.idle, "failed": r.failed,
                            "unbalanced_states": r.unbalanced}
                           for r in c.runs],
            "minimum_moves": c.minimum, "minimum_exact": c.exact, "balance": c.balance,
            "summary": c.summary(),
        })
    return out


def render_text(comparisons: list[Comparison], width: int = REPORT_WIDTH) -> list[str]:
    """The strategies section of the text report: a table per group, then the summary lines, wrapped to `width`
    (the tables are not)."""
    if not comparisons:
        return ["strategies: no clustering group to compare"]
    out = wrapped(f"strategies: {COUNTED}", width)
    by_group: dict[str, list[Comparison]] = {}
    for c in comparisons:
        by_group.setdefault(c.group, []).append(c)
    for group, cs in by_group.items():
        heads = [run_name(r) for r in cs[0].runs] + ["minimum"]
        rows = []
        for c in cs:
            cells = [f"{r.moves}" + (f" ({r.problems()})" if r.problems() else "") for r in c.runs]
            rows.append([printable(c.scenario), str(c.steps), *cells, str(c.minimum)])
        widths = [max(len(x) for x in col) for col in zip(["scenario", "steps", *heads], *rows)]
        out.append(f"  group {printable(group)}")
        for line in [["scenario", "steps", *heads], *rows]:
            out.append("    " + "  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip())
    for c in comparisons:
        out += wrapped(printable(c.summary()), width, "  ", "    ")
    return out


# ------------------------------------------------------------------------------------------ the CLI's part


@dataclass
class StrategiesReport:
    """What `--compare-strategies` and `--plan DIR` add to a report."""

    comparisons: list[Comparison]
    compared: bool
    plan_dir: Optional[str] = None
    plan_files: int = 0
    generated: bool = False  # the fleet has generated groups, which are not compared

    def json(self) -> dict:
        doc: dict = {}
        if self.compared:
            doc["strategies"] = to_json(self.comparisons)
        if self.plan_dir is not None:
            doc["plan"] = {"directory": self.plan_dir, "files": self.plan_files}
        return doc

    def text(self, width: int = REPORT_WIDTH) -> list[str]:
        lines = [""]
        if self.compared:
            lines += render_text(self.comparisons, width)
            if self.generated:
                lines.append("  (generated groups are not compared)")
        if self.plan_dir is not None:
            lines.append(f"plan: the fewest moves of {count(len(self.comparisons), 'scenario/group pair')} as "
                         f"CONFIG lists, {count(self.plan_files, 'file')} in {self.plan_dir} (index: plan.json)")
        return lines


def strategies_report(fleet: Fleet, options) -> "StrategiesReport | str":
    """Run the comparison on the engine of `options` (`SimulateOptions`) and write `--plan`; a string is one line
    saying why it could not be done."""
    from rmqplan.report.plan_out import PLAN_INDEX, write_plan
    from rmqplan.report.render import OutputError, out_directory

    if options.engine == "local":
        from rmqplan.engines.local import run_batch
    else:
        try:
            from rmqplan.engines import spark
            from rmqplan.engines.spark_session import SparkUnavailable, get_session

            session = get_session(options.master, options.conf)
        except ImportError as e:
            return f"the Spark engine is not available ({e}); use --engine local"
        except SparkUnavailable as e:
            return str(e)

        def run_batch(batch):
            return spark.run_batch(session, batch)
    from rmqplan.generated.states import restart_processes

    comparisons = compare(fleet, run_batch, plan=options.plan is not None, generated_processes=restart_processes(fleet),
                          balance=options.balance)
    report = StrategiesReport(comparisons, options.compare_strategies, generated=fleet.generate is not None)
    if options.plan is not None:
        try:
            with out_directory(options.plan, marker=PLAN_INDEX, option="--plan") as staging:
                report.plan_files = write_plan(staging, fleet.path, comparisons)
        except OutputError as e:
            return str(e)
        report.plan_dir = options.plan
    return report
