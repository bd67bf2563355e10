"""Which finished recordings the retention limits delete (pure: no files, no X)."""

from __future__ import annotations

from desktopd.recording.retention import AGE, SIZE, Retention, StoredRecording, expired


def stored(rec_id: str, size: int, changed: float) -> StoredRecording:
    return StoredRecording(rec_id, (f"recording-{rec_id}.mp4",), size, changed)


def test_old_ones_go_by_age_then_the_oldest_by_size_and_the_newest_stays():
    finished = [stored("a", 50, 0.0), stored("b", 40, 90.0), stored("c", 30, 95.0), stored("d", 500, 99.0)]
    gone = expired(finished, Retention(max_age_s=60, max_bytes=100), now=100.0)
    assert [(r.id, why) for r, why in gone] == [("a", AGE), ("b", SIZE), ("c", SIZE)]


def test_within_both_limits_nothing_goes():
    finished = [stored("a", 10, 95.0), stored("b", 10, 99.0)]
    assert expired(finished, Retention(max_age_s=60, max_bytes=100), now=100.0) == []


def test_the_newest_is_kept_by_the_size_limit_but_not_by_the_age_limit():
    assert expired([stored("a", 10**9, 99.0)], Retention(max_age_s=60, max_bytes=1), now=100.0) == []
    assert [why for _, why in expired([stored("a", 1, 0.0)], Retention(60, 10**9), now=100.0)] == [AGE]


def test_the_sweep_interval_follows_the_age_limit_within_bounds():
    assert Retention(3600, 1).sweep_interval_s == 60.0
    assert Retention(8, 1).sweep_interval_s == 2.0
    assert Retention(1, 1).sweep_interval_s == 0.5
