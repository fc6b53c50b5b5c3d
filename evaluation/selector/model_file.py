"""A trained selector on disk: a JSON sidecar, plus XGBoost's own JSON model for Model A.

The sidecar (``format`` = ``benchspace-cutlass-selector``, ``version`` 1) holds everything a
deployment needs without the dataset or any training: the model kind and settings, feature
names and frozen categorical level sets, the ridge scaler and weights or the folded MLP
layers, the hardware descriptor the features divide by, the candidate kernels (catalogue
fields, ptxas facts, runtime knobs) and what the model was trained on. An XGBoost model's
trees are in ``<stem>.xgboost.json`` beside it (``Booster.save_model`` JSON).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchspace.evaluation import DATA_DIR
from benchspace.evaluation.cutlass.hardware import FORMAT as HARDWARE_FORMAT
from benchspace.evaluation.cutlass.hardware import VERSION as HARDWARE_VERSION
from benchspace.evaluation.cutlass.hardware import Hardware, parse_hardware
from benchspace.evaluation.selector.calibration import Calibration
from benchspace.evaluation.selector.encoding import FeatureSpec
from benchspace.evaluation.selector.mlp import FoldedMLP, MLPSelector
from benchspace.evaluation.selector.models import RidgeSelector, Selector, XGBSelector, load_booster
from benchspace.evaluation.selector.shipped import SHIPPED_PATH
from benchspace.harness.errors import BenchspaceError, json_path
from benchspace.harness.files import decode, gunzipped, parse_json, read_bytes
from benchspace.harness.jsonio import write_json_atomic, write_text_atomic

SHIPPED = DATA_DIR / "models"
"""Trained selectors shipped with the package (``h200_selector.json`` and its trees)."""
SHIPPED_SELECTOR = SHIPPED_PATH
"""The selector ``select``, ``header`` and ``tune-shapes`` use when none is named: the better
on held-out shapes (:mod:`evaluation.selector.shipped` holds the figure)."""

FORMAT = "benchspace-cutlass-selector"
VERSION = 1
KINDS = ("xgboost", "ridge", "mlp")


class SelectorFileError(BenchspaceError):
    """A saved selector is missing, of another format, or malformed."""


@dataclass(frozen=True, kw_only=True)
class DeployedSelector:
    """A fitted model with the candidates it ranks and the hardware its features assume."""

    name: str
    model: Selector
    spec: FeatureSpec
    hardware: Hardware
    candidates: pd.DataFrame
    """One row per candidate: kernel, raster, swizzle, catalogue fields, ptxas facts."""
    trained_on: Mapping[str, Any]
    source: str = ""
    """The sidecar path it was loaded from ('' when built in memory)."""
    sha256: str = ""
    calibration: Calibration | None = None
    """Score gap -> predicted ``T/T*``; None for files written before it existed."""
    cublas: pd.DataFrame | None = None
    """Same-round cuBLAS evidence (M, N, K, layout, cublas_tflops, pick, pick_tflops); None
    when the training data had no same-round cuBLAS rows."""


def kind_of(model: Selector) -> str:
    """``xgboost``, ``ridge`` or ``mlp``."""
    if isinstance(model, XGBSelector):
        return "xgboost"
    if isinstance(model, RidgeSelector):
        return "ridge"
    if isinstance(model, MLPSelector):
        return "mlp"
    raise TypeError(f"cannot save a {type(model).__name__}")


def hardware_json(hw: Hardware) -> dict[str, Any]:
    """The descriptor as the JSON that :func:`evaluation.cutlass.hardware.parse_hardware` reads."""
    values = {
        f.name: {"value": getattr(hw, f.name), "source": hw.sources.get(f.name, "")}
        for f in fields(Hardware)
        if f.name not in ("name", "description", "sources") and getattr(hw, f.name) is not None
    }
    return {
        "format": HARDWARE_FORMAT,
        "version": HARDWARE_VERSION,
        "name": hw.name,
        "description": hw.description,
        "values": values,
    }


def _settings(model: Selector) -> dict[str, Any]:
    skip = {"spec"}
    return {
        f.name: (list(v) if isinstance(v := getattr(model, f.name), tuple) else v)
        for f in fields(model)  # type: ignore[arg-type]
        if f.init and f.name not in skip
    }


def _candidate_records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    records = []
    for row in frame.to_dict(orient="records"):
        clean: dict[str, Any] = {}
        for key, value in row.items():
            if isinstance(value, np.generic):
                value = value.item()
            if isinstance(value, float) and not np.isfinite(value):
                value = None
            clean[str(key)] = value
        records.append(clean)
    return records


def save_selector(selector: DeployedSelector, path: str | Path) -> list[Path]:
    """Write the sidecar (and the booster for XGBoost) atomically; returns the files written."""
    target = Path(path)
    kind = kind_of(selector.model)
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "name": selector.name,
        "kind": kind,
        "settings": _settings(selector.model),
        "features": selector.spec.to_json(),
        "hardware": hardware_json(selector.hardware),
        "candidates": _candidate_records(selector.candidates),
        "trained_on": dict(selector.trained_on),
    }
    if selector.calibration is not None:
        doc["calibration"] = selector.calibration.to_json()
    if selector.cublas is not None and not selector.cublas.empty:
        doc["cublas"] = _candidate_records(selector.cublas)
    written = [target]
    if isinstance(selector.model, XGBSelector):
        booster = target.with_name(f"{target.stem}.xgboost.json")
        raw = selector.model.booster_.save_raw(raw_format="json")
        write_text_atomic(booster, bytes(raw).decode("utf-8"))
        doc["booster"] = booster.name
        written.append(booster)
    elif isinstance(selector.model, RidgeSelector):
        doc["ridge"] = selector.model.to_json()
    elif isinstance(selector.model, MLPSelector):
        assert selector.model.network_ is not None
        doc["mlp"] = selector.model.network_.to_json()
    write_json_atomic(target, doc)
    return written


def _model(kind: str, spec: FeatureSpec, doc: Mapping[str, Any], path: Path) -> Selector:
    settings = dict(doc.get("settings", {}))
    try:
        if kind == "xgboost":
            model = XGBSelector(spec=spec, **settings)
            booster = path.with_name(str(doc["booster"]))
            if not booster.is_file():
                raise SelectorFileError(
                    f"{path}: {json_path('booster')}: {booster} does not exist; copy it next to "
                    "the sidecar or retrain with 'benchspace cutlass train'"
                )
            model.booster_ = load_booster(str(booster))
            return model
        if kind == "ridge":
            return RidgeSelector.from_json(spec, doc["ridge"])
        # JSON has no tuples: the hidden layer widths come back as a list.
        mlp_settings: dict[str, Any] = {
            k: tuple(v) if isinstance(v, list) else v for k, v in settings.items()
        }
        mlp = MLPSelector(spec=spec, **mlp_settings)
        mlp.network_ = FoldedMLP.from_json(doc["mlp"])
        return mlp
    except (KeyError, TypeError, ValueError) as exc:
        raise SelectorFileError(
            f"{path}: the {kind} model is malformed ({exc!r}); retrain with "
            "'benchspace cutlass train'"
        ) from None


def load_selector(path: str | Path) -> DeployedSelector:
    """Read a saved selector (``.json``, or ``.json.gz``); no training, no dataset needed."""
    source = Path(path)
    if not source.exists():
        raise SelectorFileError(
            f"{source}: no such selector; train one with 'benchspace cutlass train DATASET "
            f"--out {source}'"
        )
    raw = read_bytes(source, error=SelectorFileError, kind="selector")
    if source.suffix == ".gz":  # a sidecar kept compressed (its catalogue is most of it)
        raw = gunzipped(raw, str(source), error=SelectorFileError, kind="sidecar")
    doc = parse_json(
        decode(raw, str(source), error=SelectorFileError),
        str(source),
        error=SelectorFileError,
        kind="selector",
        fix="retrain the selector",
    )
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise SelectorFileError(f"{source}: {json_path('format')}: {found!r} must be {FORMAT!r}")
    if doc.get("version") != VERSION:
        raise SelectorFileError(
            f"{source}: {json_path('version')}: {doc.get('version')!r} is not supported; this "
            f"benchspace reads version {VERSION}"
        )
    if not doc.get("candidates"):
        raise SelectorFileError(
            f"{source}: {json_path('candidates')}: the selector has no candidates to rank; "
            "retrain it with 'benchspace cutlass train'"
        )
    kind = doc.get("kind")
    if kind not in KINDS:
        raise SelectorFileError(f"{source}: {json_path('kind')}: {kind!r} is not one of {KINDS}")
    try:
        spec = FeatureSpec.from_json(doc["features"])
        try:
            calibration = (
                Calibration.from_json(doc["calibration"]) if "calibration" in doc else None
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise SelectorFileError(
                f"{source}: {json_path('calibration')}: malformed ({exc}); retrain the selector"
            ) from None
        cublas = pd.DataFrame(doc["cublas"]) if doc.get("cublas") else None
        return DeployedSelector(
            name=str(doc.get("name", kind)),
            model=_model(kind, spec, doc, source),
            spec=spec,
            hardware=parse_hardware(doc["hardware"], f"{source}: $.hardware"),
            candidates=pd.DataFrame(doc["candidates"]),
            trained_on=doc.get("trained_on", {}),
            source=str(source),
            sha256=hashlib.sha256(raw).hexdigest(),
            calibration=calibration,
            cublas=cublas,
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SelectorFileError(
            f"{source}: the selector is malformed ({exc!r}); retrain it with "
            "'benchspace cutlass train'"
        ) from None
