"""The inventory of the results page: every experimental figure of the three papers (FTS: 1-7;
DP-FTS-DE: 2-12, figure 1 being the algorithm's diagram; Fed-PNE: 2-4 and 6-8, figure 1 being
an illustration and figure 5 a plot of the test functions) with what the page reproduces of it.
Counted from the papers' captions in ../shared/papers/; 24 figures in all."""

REPRODUCED, PART, ANALOGUE, OPEN = "reproduced", "in part", "on analogue data", "not yet"

# (paper, figure, what it shows, status, what is there or missing). A figure of the real-data
# part is "on analogue data" only when that part's results are on the page (real=True).
FIGURES = [
    ("FTS", "1", "synthetic: M, t_n and dissimilar peers", REPRODUCED,
     "all three panels (section FTS figure 1a-c)"),
    ("FTS", "2", "best value after 50 iterations against the message length: FTS, TS, RGPE, TAF "
     "on landmine, Google glasses, mobile sensors", OPEN,
     "RGPE and TAF run in the loop (`scenarios/papers/rgpe-synthetic.toml`, "
     "`taf-synthetic.toml`); the real-data analogues are not run with them yet"),
    ("FTS", "3", "best value against run time, the same three tasks", OPEN,
     "as figure 2, and the run time of RGPE / TAF against N"),
    ("FTS", "4", "t_n increasing over time, the same three tasks", OPEN, "as figure 2"),
    ("FTS", "5", "landmine: the other five target agents", OPEN, "as figure 2"),
    ("FTS", "6", "Google glasses: the other five target agents", OPEN, "as figure 2"),
    ("FTS", "7", "mobile sensors: the other five target agents", OPEN, "as figure 2"),
    ("DP-FTS-DE", "2", "synthetic: DE, S, q, z", REPRODUCED, "panels a-d, with both local samplers"),
    ("DP-FTS-DE", "3", "privacy against performance on landmine, activity, EMNIST", ANALOGUE,
     "Debian's data sets (docs/real-data.md): section Real data"),
    ("DP-FTS-DE", "4", "synthetic: DP-FTS against DP-FTS-DE", REPRODUCED, "with both local samplers"),
    ("DP-FTS-DE", "5", "synthetic: the two components of DE", REPRODUCED, "with both local samplers"),
    ("DP-FTS-DE", "6", "synthetic: the trade-off in P", REPRODUCED,
     "P = 1 to 4 (the paper does not give its values), with both local samplers"),
    ("DP-FTS-DE", "7", "synthetic: heterogeneous agents (alpha = 0.7, 1.0)", REPRODUCED,
     "panels a-b, with both local samplers"),
    ("DP-FTS-DE", "8", "activity: DP-FTS against DP-FTS-DE at equal clipping", OPEN,
     "the activity analogue runs for figure 3; not this comparison"),
    ("DP-FTS-DE", "9", "activity: robustness to the weights", OPEN, "as figure 8"),
    ("DP-FTS-DE", "10", "activity: robustness to P", OPEN, "as figure 8"),
    ("DP-FTS-DE", "11", "landmine: Rényi DP", OPEN, "as figure 8"),
    ("DP-FTS-DE", "12", "adaptive against fixed weights: (a) synthetic, (b) activity", PART,
     "12a, with both local samplers; 12b not yet"),
    ("Fed-PNE", "2", "cumulative regret: Garland, DoubleSine, landmine, COVID-19 dosage, against "
     "HCT, KernelTS, Fed1-UCB, FN-UCB", PART,
     "2a-b against HCT; 2c on the landmine analogue; 2d (the `seir` objective exists) and the "
     "other baselines (each runs in the loop from `scenarios/papers/`) not on the page yet"),
    ("Fed-PNE", "3", "Fed1-UCB against the number of arms K", OPEN,
     "Fed1-UCB runs in the loop (`scenarios/papers/fed1-ucb-garland.toml`); the sweep over K is "
     "not on the page"),
    ("Fed-PNE", "4", "synthetic: against GP-BO and batched BO", OPEN,
     "both run in the loop (`scenarios/papers/gp-bo-garland.toml`, `batched-bo-garland.toml`); "
     "GP-BO at T = 1000 takes about 2 hours"),
    ("Fed-PNE", "6", "more clients: synthetic (a-b) and real (c-d)", PART, "6a-b; 6c-d not yet"),
    ("Fed-PNE", "7", "communication: synthetic (a-b) and real (c-d)", PART, "7a-b; 7c-d not yet"),
    ("Fed-PNE", "8", "MNIST: against the baselines, and more clients", OPEN,
     "the digits set Debian ships is the closest; not run"),
]


def inventory_section(w, real, studied):
    """The page's last section: each figure's status, then what else is not run here."""
    w("## Inventory: every figure of the three papers")
    w("")
    counts = {}
    rows = []
    for paper, fig, what, status, note in FIGURES:
        if status == ANALOGUE and not real:
            status, note = OPEN, "`tools/reproduce --real-only` runs it on analogue data: " + note
        counts[status] = counts.get(status, 0) + 1
        rows.append(f"| {paper} | {fig} | {what} | {status} | {note} |")
    w(f"The experimental figures of the three papers, {len(FIGURES)} in all: "
      + ", ".join(f"{counts.get(s, 0)} {s}" for s in (REPRODUCED, PART, ANALOGUE, OPEN))
      + ". A figure reproduced is one whose runs are on this page; its claims' verdicts are in "
      "its section, reproduced, contradicted or undecided.")
    w("")
    w("| paper | figure | what it shows | status | here |")
    w("|---|---|---|---|---|")
    for r in rows:
        w(r)
    w("")
    if studied:
        w("The shipped straggler scenarios themselves (`scenarios/stragglers/*.toml`, "
          "`scenarios/async.toml`, N = 200, T = 40) and the X-armed one "
          "(`scenarios/xarmed/stragglers-garland.toml`) are not run here; the study above uses "
          "`scenarios/stragglers/study/base.toml` (N = 100, T = 30) and "
          "`scenarios/stragglers/study/fed-pne.toml` instead.")
    else:
        w("The straggler study (`scenarios/stragglers/`, `scenarios/async.toml`, "
          "`scenarios/xarmed/stragglers-garland.toml`): no paper figure to compare with, and not "
          "run here.")
    w("")
