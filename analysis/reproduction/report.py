"""results/REPORT.md: the verdict table, each claim with its reference and figures, then the
sections beyond the papers."""

from __future__ import annotations

from .context import Reproduction
from .references import KIND_NAMES, REFERENCES


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
             "| step | claim | checked against | verdict |", "|---|---|---|---|"]
    for c in r.claims:
        kind = REFERENCES[c["step"]][0]
        lines.append(f"| {c['step']} | {c['claim']} | {KIND_NAMES[kind]} | {c['verdict']} |")
    for c in r.claims:
        lines += ["", f"## {c['step']}: {c['verdict']}", "", c["claim"], "",
                  f"Checked against ({KIND_NAMES[REFERENCES[c['step']][0]]}): "
                  f"{REFERENCES[c['step']][1]}.", "", f"Measured: {c['measured']}"]
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
