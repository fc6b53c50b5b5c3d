"""Hardware descriptors: the shipped files and the loader's errors."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest

from benchspace.evaluation.cutlass.hardware import (
    Hardware,
    HardwareError,
    available_hardware,
    load_hardware,
)

SHIPPED = Path(__file__).parents[3] / "evaluation" / "data" / "hardware" / "h200.json"


def test_shipped_descriptors() -> None:
    assert available_hardware() == ["gh200", "h200"]
    h200, gh200 = load_hardware("h200"), load_hardware("gh200")
    assert (h200.sms, h200.llc_bytes, h200.registers_per_sm) == (132, 60 * 2**20, 65536)
    assert (h200.smem_per_sm_bytes, h200.smem_per_block_bytes) == (228 * 1024, 227 * 1024)
    assert h200.ridge_flops_per_byte == pytest.approx(206.1, abs=0.1)
    assert gh200.ridge_flops_per_byte == pytest.approx(247.3, abs=0.1)
    assert gh200.llc_bytes == 50 * 2**20
    assert h200.peak_bf16_flops_measured == 790e12
    assert gh200.peak_bf16_flops_measured is None


def test_every_value_has_a_source() -> None:
    for name in available_hardware():
        hw = load_hardware(name)
        values = {
            f.name
            for f in fields(Hardware)
            if f.name not in ("name", "description", "sources") and getattr(hw, f.name) is not None
        }
        assert set(hw.sources) == values
        assert all(source.strip() for source in hw.sources.values())


def write(tmp_path: Path, change: dict[str, object]) -> Path:
    data = json.loads(SHIPPED.read_text())
    for key, value in change.items():
        target = data
        *parents, last = key.split(".")
        for part in parents:
            target = target[part]
        if value is None:
            del target[last]
        else:
            target[last] = value
    path = tmp_path / "gpu.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"version": 2}, r"\$\.version: 2 is not supported; this version reads 1"),
        ({"values.sms": None}, r"\$\.values: missing sms; add each with a source"),
        ({"values.sms": {"value": 132, "source": ""}}, r"\$\.values\.sms\.source: '' must name"),
        ({"values.sms": {"value": 13.2, "source": "x"}}, r"\$\.values\.sms\.value: 13\.2 must be"),
        ({"values.llc": {"value": 1, "source": "x"}}, r"\$\.values: unknown key\(s\) \['llc'\]"),
        ({"values.sms": 132}, r"\$\.values\.sms: 132 must be an object with 'value' and 'source'"),
    ],
)
def test_malformed_descriptors(tmp_path: Path, change: dict[str, object], message: str) -> None:
    path = write(tmp_path, change)
    with pytest.raises(HardwareError, match=rf"^{path}: {message}"):
        load_hardware(path)


def test_unknown_name() -> None:
    with pytest.raises(
        HardwareError, match=r"^b200: no such hardware descriptor; use one of gh200, h200"
    ):
        load_hardware("b200")
