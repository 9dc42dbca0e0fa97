"""The benchmark scripts' own logic: verdicts never claim a figure that was not measured,
and a wait that can never end is reported instead of hanging."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from script_modules import bench

load = bench


def test_recall_bench_does_not_claim_an_unmeasured_target(capsys: pytest.CaptureFixture[str]) -> None:
    rb = load("recall_bench")
    assert rb.verdict(None).startswith("not measured") and rb.verdict(True) == "met" and rb.verdict(False) == "NOT met"
    assert rb.main(["--sizes", "50", "--queries", "5", "--reps", "1"]) == 0
    out = capsys.readouterr().out
    assert "full scan: not measured (no size ≥ 10000 in --sizes)" in out and ": met" not in out


def test_recall_bench_prints_cpu_time_ratios_and_the_load(capsys: pytest.CaptureFixture[str]) -> None:
    """The wall-clock ratio grows with the machine's load; the CPU-time ratio and the load
    are printed beside it."""
    rb = load("recall_bench")
    assert rb.main(["--sizes", "40", "--queries", "3", "--reps", "1"]) == 0
    out = capsys.readouterr().out
    assert "ratio (CPU)" in out and "CPU: exact / enh. / scan" in out and "load" in out
    row = next(line for line in out.splitlines() if line.strip().startswith("40 "))
    assert row.count("×") == 4 and "→" in row


def test_tui_bench_wait_has_a_deadline() -> None:
    tb = load("tui_bench")
    app = SimpleNamespace(focused=None)
    with pytest.raises(tb.BenchTimeout, match="the cursor did not move.*focused: NoneType"):
        asyncio.run(tb.until(lambda: False, "the cursor did not move", app, timeout=0.05))
    asyncio.run(tb.until(lambda: True, "never waits", app, timeout=0.0))


def test_store_bench_cold_load_really_has_no_parse_cache(layout: Any) -> None:
    from reasonix_tui.core.settings import Settings
    from reasonix_tui.core.store.requests import SaveRequest
    from reasonix_tui.core.store.store import Store

    sb = load("store_bench")
    Store(layout, settings=Settings()).save(SaveRequest(name="a", description="d", body="b"))
    Store(layout, settings=Settings()).list_all()  # writes the parse cache
    assert any(layout.cache_dir.glob("facts-*.cache"))
    assert sb.clear_parse_cache(layout) >= 1
    assert not any(layout.cache_dir.iterdir())


def test_approval_bench_runs_one_real_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One proposal from a real ``reasonix-tui remember`` process, the modal, ``y``, the
    process exiting 0 with the fact written: the figures come from that, not from a stub."""
    ab = load("approval_bench")
    assert ab.main(["--facts", "20", "--runs", "1", "--dir", str(tmp_path), "--large-mb", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "proposal written → modal on screen" in out and "key y → agent process exited" in out
    assert "a 0.05 MB proposal: written → dialog on screen" in out
    assert (tmp_path / "s20" / "home" / "memory" / "global" / "bench-pref-0.md").exists()


def test_mcp_start_bench_times_a_real_handshake(capsys: pytest.CaptureFixture[str]) -> None:
    mb = load("mcp_start_bench")
    assert mb.main(["--runs", "1", "--sdk-runs", "1", "--facts", "5"]) == 0
    out = capsys.readouterr().out
    assert "tools/list reply" in out and "bare interpreter echo" in out and "SDK server alone" in out


def test_peer_bench_skips_with_how_to_when_basic_memory_is_absent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pb = load("peer_bench")
    monkeypatch.delenv(pb.VENV_ENV, raising=False)
    assert pb.main([]) == 0
    out = capsys.readouterr().out
    assert "skipped" in out and "pip install basic-memory==0.24.1" in out and "python3.12 -m venv" in out
    assert pb.main(["--bm-venv", str(tmp_path)]) == 0
    assert "is not a virtualenv" in capsys.readouterr().out
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").write_text("")
    assert pb.main(["--bm-venv", str(tmp_path)]) == 0
    assert "basic-memory is not installed" in capsys.readouterr().out


def test_peer_bench_rows_print_both_figures_the_ratio_and_the_load(capsys: pytest.CaptureFixture[str]) -> None:
    pb = load("peer_bench")
    row = pb.Row(
        1000,
        "in-process search (warm)",
        bm=[0.040, 0.050, 0.060],
        rx=[0.002, 0.001, 0.003],
        loads=["1.5", "2.5"],
        show_p95=True,
    )
    assert row.ratio() == pytest.approx(25.0)
    pb.print_rows([row])
    line = [ln for ln in capsys.readouterr().out.splitlines() if "in-process" in ln][0]
    assert "50.0 ms / 60.0 ms" in line and "2.0 ms / 3.0 ms" in line and "25.0×" in line and "1.5–2.5" in line


def test_health_bench_measures_a_real_incremental_run(capsys: pytest.CaptureFixture[str]) -> None:
    """The after-one-write figure comes from a run that scanned exactly the written fact."""
    hb = load("health_bench")
    assert hb.main(["--sizes", "40", "--traces", "12", "--reps", "1"]) == 0
    out = capsys.readouterr().out
    assert "from scratch" in out and "after 1 write" in out and "target" not in out  # no 10k claim
    assert "one-shot CLI from nothing" in out and "peak memory (whole process, MB)" in out
    assert "same yes" in out


def test_health_bench_measures_its_own_part_at_a_size(capsys: pytest.CaptureFixture[str]) -> None:
    """``--own-peak N``: health's own time and peak memory at N facts made in memory."""
    hb = load("health_bench")
    assert hb.main(["--own-peak", "60", "--traces", "12"]) == 0
    out = capsys.readouterr().out
    assert "health's own part" in out and "peak resident memory (MB)" in out and "after a write" in out


def test_meaning_probe_reads_no_held_out_part_and_applies_the_shipped_rule() -> None:
    probe = bench("meaning_probe")
    assert not {"blind", "blind2"} & set(probe.OPEN_PARTS)
    rule = probe.rule
    n = rule.MIN_FACTS
    sims = np.full(n, 0.05, dtype=np.float32)
    sims[3] = 0.5  # far above the store, and above SIM_ALONE
    words = ["alpha", "beta", "gamma"]
    word_sims = np.zeros((3, n), dtype=np.float32)
    word_sims[:, 3] = rule.SUPPORT_SIM  # every word points to fact 3

    def turn(cls: str, ws: np.ndarray, mass: float = 3.0) -> Any:
        return probe.Turn("p", "t", cls, [f"f{i}" for i in range(n)], ["f3"], [], words, mass, sims, ws)

    shipped = (rule.SIM_ALONE, rule.Z_ALONE, rule.SUPPORT_SIM, rule.SUPPORT_WORDS)
    assert probe.admitted(turn("paraphrase", word_sims), *shipped) == "f3"
    few = word_sims.copy()
    few[0, 3] = 0.0  # two words point to it: not enough
    assert probe.admitted(turn("paraphrase", few), *shipped) is None
    assert probe.admitted(turn("paraphrase", word_sims, mass=rule.SUPPORT_MASS / 2), *shipped) is None
    assert probe.score([turn("paraphrase", word_sims), turn("irrelevant", word_sims)], *shipped)[:3] == (1, 0, 1)
