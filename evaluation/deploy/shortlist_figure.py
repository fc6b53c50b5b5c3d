"""The measured tune-my-shapes curve as a figure (matplotlib, the ``plot`` extra)."""

from __future__ import annotations

from pathlib import Path

from benchspace.evaluation.deploy.shortlist_measured import MeasuredCurve


def write_curve_figure(curve: MeasuredCurve, path: Path) -> Path:
    """Regret (mean and p95) and the pick against cuBLAS, against K, CUTLASS only and with
    ``cublas`` as a dispatch choice; a PNG at ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = [r.k for r in curve.rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    left.plot(ks, [100 * r.mean for r in curve.rows], marker="o", label="CUTLASS: mean")
    left.plot(ks, [100 * r.p95 for r in curve.rows], marker="o", ls="--", label="CUTLASS: p95")
    left.plot(ks, [100 * r.with_cublas[0] for r in curve.rows], marker="s", label="or cuBLAS: mean")
    left.plot(ks, [100 * r.with_cublas[1] for r in curve.rows], marker="s", ls="--",
              label="or cuBLAS: p95")  # fmt: skip
    left.set_xscale("log", base=2)
    left.set_xticks(ks, [str(k) for k in ks])
    left.set_xlabel("K (shortlisted configurations measured per shape)")
    left.set_ylabel("regret vs the oracle of the same rounds (%)")
    left.legend(fontsize=7)
    right.plot(ks, [r.vs_cublas for r in curve.rows], marker="o", label="CUTLASS pick")
    right.plot(ks, [r.with_cublas_vs for r in curve.rows], marker="s", label="pick or cuBLAS")
    right.axhline(curve.oracle_vs_cublas, color="grey", ls=":", label="oracle")
    right.axhline(1.0, color="black", lw=0.5)
    right.set_xscale("log", base=2)
    right.set_xticks(ks, [str(k) for k in ks])
    right.set_xlabel("K")
    right.set_ylabel("t(cublas:heuristic) / t(pick), geomean")
    right.legend(fontsize=7)
    fig.suptitle(f"Tune my shapes measured on the GPU ({curve.shapes} shapes)", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return path
