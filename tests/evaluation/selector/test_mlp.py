"""Model B: pair sampling with the needle guarantee, LambdaRank weights, the folded export."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from selector_data import FROZEN, ROOT

from benchspace.evaluation.cutlass.dataset_read import load_dataset
from benchspace.evaluation.cutlass.hardware import load_hardware
from benchspace.evaluation.selector.encoding import Scaler, design
from benchspace.evaluation.selector.grades import label_groups
from benchspace.evaluation.selector.metrics import picks, random_pick
from benchspace.evaluation.selector.mlp import (
    NEEDLE_TOP,
    FoldedMLP,
    MLPSelector,
    delta_ndcg,
    fold_scaler,
    gains,
    ideal_dcg,
    raw_inputs,
    sample_pairs,
    torch_available,
)
from benchspace.evaluation.study.run import Prepared, fit_model, prepare

needs_torch = pytest.mark.skipif(not torch_available(), reason="PyTorch is not installed")


def test_pairs_keep_every_needle_pair_and_respect_the_cap() -> None:
    rng = np.random.default_rng(0)
    y = rng.permutation(50) / 50.0
    hi, lo = sample_pairs(y, cap=600, rng=rng)
    assert (y[hi] > y[lo]).all()
    top = set(np.argsort(-y)[:NEEDLE_TOP].tolist())
    needle = {(int(a), int(b)) for a, b in zip(hi, lo, strict=True) if a in top or b in top}
    # Every pair touching a top row: 8 * 49 - 28 (pairs of two top rows counted once).
    assert len(needle) == NEEDLE_TOP * 49 - 28
    assert len(hi) <= 600
    # With a cap below the needle count, only needle pairs are kept, all of them.
    hi2, lo2 = sample_pairs(y, cap=10, rng=rng)
    assert len(hi2) == NEEDLE_TOP * 49 - 28
    assert all(a in top or b in top for a, b in zip(hi2, lo2, strict=True))


def test_pairs_skip_ties_and_tiny_groups() -> None:
    rng = np.random.default_rng(0)
    hi, lo = sample_pairs(np.array([1.0, 1.0, 0.5]), cap=10, rng=rng)
    assert sorted(zip(hi.tolist(), lo.tolist(), strict=True)) == [(0, 2), (1, 2)]
    hi, _ = sample_pairs(np.array([1.0]), cap=10, rng=rng)
    assert len(hi) == 0


def test_gains_idcg_and_delta_ndcg_by_hand() -> None:
    y = np.array([1.0, 0.5, 0.0])
    assert gains(y, "linear").tolist() == [1.0, 0.5, 0.0]
    assert gains(y, "exponential").tolist() == pytest.approx([1.0, np.sqrt(2) - 1, 0.0])
    with pytest.raises(ValueError, match="gain 'cubic' is not one of linear, exponential"):
        gains(y, "cubic")
    g = gains(y, "linear")
    idcg = 1.0 / np.log2(2) + 0.5 / np.log2(3)
    assert ideal_dcg(g) == pytest.approx(idcg)
    # Scores ranked the worst first: ranks 3, 2, 1. Swapping 0 and 2 moves gain 1 by
    # |1/log2(4) - 1/log2(2)|.
    d = delta_ndcg(g, np.array([3, 2, 1]), np.array([0]), np.array([2]), idcg)
    assert d[0] == pytest.approx(1.0 * abs(1 / np.log2(4) - 1.0) / idcg)


def test_standardisation_folds_into_the_first_layer() -> None:
    rng = np.random.default_rng(1)
    w = [rng.normal(size=(4, 5)), rng.normal(size=(1, 4))]
    b = [rng.normal(size=4), rng.normal(size=1)]
    scaler = Scaler(mean=(1.0, -2.0, 3.0), scale=(2.0, 0.5, 4.0))
    raw = rng.normal(size=(6, 5)) * 10
    scaled = raw.copy()
    scaled[:, :3] = (raw[:, :3] - np.asarray(scaler.mean)) / np.asarray(scaler.scale)
    plain = FoldedMLP(weights=tuple(w), biases=tuple(b)).forward(scaled)
    folded = fold_scaler(w, b, scaler, 3)
    np.testing.assert_allclose(folded.forward(raw), plain, rtol=1e-12)
    np.testing.assert_allclose(FoldedMLP.from_json(folded.to_json()).forward(raw), plain)


@pytest.fixture(scope="module")
def learnable() -> Prepared:
    prepared = prepare(load_dataset(FROZEN), load_hardware("h200"))
    f = prepared.features
    tflops = 100.0 * f["tile_intensity"] / 128.0 + 20.0 * f["wave_efficiency"]
    labels = label_groups(prepared.labels.assign(tflops=tflops.to_numpy(), tflops_sd=0.0))
    return Prepared(
        labels=labels,
        features=f,
        spec=prepared.spec,
        configs=prepared.configs,
        cublas=prepared.cublas,
    )


@needs_torch
@pytest.mark.parametrize(
    ("loss", "gain"),
    [
        ("mse", "linear"),
        ("pairwise", "linear"),
        ("lambdarank", "linear"),
        ("lambdarank", "exponential"),
    ],
)
def test_each_loss_learns(learnable: Prepared, loss: str, gain: str) -> None:
    train = (learnable.labels["split"] == "train").to_numpy()
    model = MLPSelector(spec=learnable.spec, loss=loss, gain=gain, epochs=40, seed=0)
    fit_model(model, learnable.features[train], learnable.labels[train])
    held = learnable.labels[~train]
    regret = picks(held, model.score(learnable.features[~train]))["regret"].mean()
    assert regret < random_pick(held)["regret"].mean() / 2


@needs_torch
def test_folded_network_equals_the_trained_one(learnable: Prepared) -> None:
    import torch

    model = MLPSelector(spec=learnable.spec, loss="pairwise", epochs=2, seed=3)
    fit_model(model, learnable.features, learnable.labels)
    net = model.network_
    assert net is not None
    # Rebuild the unfolded torch network from the folded weights and a fresh scaler: equal.
    raw = raw_inputs(learnable.features, learnable.spec)
    ours = model.score(learnable.features)
    torch_scores = torch.as_tensor(raw) @ torch.as_tensor(net.weights[0]).T + torch.as_tensor(
        net.biases[0]
    )
    for w, b in zip(net.weights[1:], net.biases[1:], strict=True):
        torch_scores = torch.relu(torch_scores) @ torch.as_tensor(w).T + torch.as_tensor(b)
    np.testing.assert_allclose(ours, torch_scores[:, 0].numpy(), rtol=1e-9)
    assert (
        design(
            learnable.features,
            learnable.spec,
            Scaler(
                mean=(0.0,) * len(learnable.spec.numeric),
                scale=(1.0,) * len(learnable.spec.numeric),
            ),
        ).shape
        == raw.shape
    )


def test_bad_loss_is_refused(learnable: Prepared) -> None:
    with pytest.raises(ValueError, match="loss 'hinge' is not one of mse, pairwise, lambdarank"):
        MLPSelector(spec=learnable.spec, loss="hinge").fit(
            learnable.features, np.zeros(1), group=np.zeros(1)
        )


def test_the_package_imports_and_runs_without_torch() -> None:
    script = textwrap.dedent(
        f"""
        import sys
        import evaluation.study.report, evaluation.deploy.select, evaluation.study.run
        assert "torch" not in sys.modules  # nothing imports PyTorch until an MLP trains

        class NoTorch:  # as if PyTorch were not installed
            def find_spec(self, name, path=None, target=None):
                if name == "torch" or name.startswith("torch."):
                    raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
                return None

        sys.meta_path.insert(0, NoTorch())
        from benchspace.evaluation.cutlass.dataset_read import load_dataset
        from benchspace.evaluation.cutlass.hardware import load_hardware
        from benchspace.evaluation.selector.mlp import torch_available
        from benchspace.evaluation.study.run import StudyOptions, run_study
        assert not torch_available()
        result = run_study(load_dataset({str(FROZEN)!r}), load_hardware("h200"),
                           StudyOptions(cross_validation=False, repetitions=2))
        names = [s.name for s in result.held_out]
        assert not any(n.startswith("mlp") for n in names), names
        print(result.notes[0])
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == (
        "MLP skipped: PyTorch is not installed (pip install torch, extra 'mlp')."
    )
