"""results/REPORT.md: the verdict table, each claim with its reference and figures, then the
sections beyond the papers."""

from __future__ import annotations

import datetime
from pathlib import Path

from .context import Reproduction
from .references import CHECK_NAMES, REFERENCES, SOURCE_NAMES


def table_row(c: dict) -> str:
    """A claim's row: step, claim, its source's kind, its check's kind and the verdict."""
    source, check, _ = REFERENCES[c["step"]]
    return (f"| {c['step']} | {c['claim']} | {SOURCE_NAMES[source]} | {CHECK_NAMES[check]} | "
            f"{c['verdict']} |")


def write_report(r: Reproduction, seconds: float) -> None:
    lines = ["# Reproduction report", "",
             f"Written by `scripts/reproduce{' --full' if r.full else ''}"
             f"{' --reuse' if r.reuse else ''}"
             f"{' --arithmetic ' + r.arithmetic if r.arithmetic != 'auto' else ''}` "
             f"in {seconds / 60:.1f} minutes "
             f"({r.jobs} jobs, arithmetic {', '.join(sorted(r.arithmetics_run)) or '-'}"
             f"{'; results already in results/ were reused' if r.reuse else ''}). Each claim of the two papers "
             "(Generalized PolyDot codes; CodeNet), its figure, what was measured, and "
             "whether it reproduced. Figures are in figures/, raw results in results/.", "",
             "| step | claim | source | checked against | verdict |", "|---|---|---|---|---|"]
    for c in r.claims:
        lines.append(table_row(c))
    for c in r.claims:
        lines += ["", f"## {c['step']}: {c['verdict']}", "", c["claim"], "",
                  f"Source ({SOURCE_NAMES[REFERENCES[c['step']][0]]}) and check "
                  f"({CHECK_NAMES[REFERENCES[c['step']][1]]}): "
                  f"{REFERENCES[c['step']][2]}.", "", f"Measured: {c['measured']}"]
        if c["note"]:
            lines += ["", c["note"]]
        for f in c["figures"]:
            lines += ["", f"![{f}](../figures/{f})"]
    for section in r.sections:
        lines += [""] + section
    seconds_by_step = getattr(r, "step_seconds", {})
    if seconds_by_step:
        lines += ["", "## Time of each step", "", "| step | wall time (s) |", "|---|---|"]
        lines += [f"| {step} | {s:.0f} |" for step, s in seconds_by_step.items()]
    (r.results / "REPORT.md").write_text("\n".join(lines) + "\n")


# README.md's verdict table lies between these lines; `scripts/reproduce --update-readme`
# rewrites it from the run, so that its verdicts are the report's, not typed by hand.
README_BEGIN = "<!-- verdicts: written by scripts/reproduce --update-readme -->"
README_END = "<!-- end of verdicts -->"


def verdict_block(r: Reproduction, seconds: float, when: datetime.date) -> list[str]:
    """The README's table: each claim's verdict and what it was checked against, with the run's
    date, options and time."""
    steps = ", ".join(c["step"] for c in r.claims)
    lines = [f"The report of {when.isoformat()} (`scripts/reproduce"
             f"{' --full' if r.full else ''}`, {r.jobs} jobs, steps {steps}: "
             f"{seconds / 60:.1f} minutes once built):", "",
             "| step | claim | source | checked against | verdict |", "|---|---|---|---|---|"]
    for c in r.claims:
        lines.append(table_row(c))
    return lines


def update_readme(readme: Path, block: list[str]) -> None:
    """Replaces what lies between README_BEGIN and README_END with `block`; raises ValueError,
    leaving the file as it was, when the markers are missing or out of order."""
    text = readme.read_text()
    begin, end = text.find(README_BEGIN), text.find(README_END)
    if begin < 0 or end < begin:
        raise ValueError(f"{readme}: no '{README_BEGIN}' ... '{README_END}' block")
    head = text[:begin + len(README_BEGIN)]
    readme.write_text(head + "\n" + "\n".join(block) + "\n" + text[end:])
