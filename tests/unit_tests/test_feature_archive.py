"""The verifier's read states travel with the results: saved into one archive and loaded back into an empty cache,
every state comes back as it was read, and a state already in the cache is never overwritten."""

from __future__ import annotations

import numpy as np

from benchmarks import feature_archive


def test_states_round_trip_through_the_archive(tmp_path, monkeypatch):
    monkeypatch.setattr(feature_archive, "ARCHIVE_DIR", tmp_path / "archive")
    cache = tmp_path / "cache" / "abc123-def456"
    cache.mkdir(parents=True)
    states = {f"key{i}": np.random.default_rng(i).normal(size=1536).astype(np.float32) for i in range(3)}
    for key, state in states.items():
        np.save(cache / f"{key}.npy", state)
    assert feature_archive.save(cache) == 3
    assert feature_archive.archive_path(cache).name == "abc123-def456.npz"

    fresh = tmp_path / "other" / "abc123-def456"
    kept = np.ones(1536, dtype=np.float32)
    fresh.mkdir(parents=True)
    np.save(fresh / "key0.npy", kept)
    assert feature_archive.load(fresh) == 2
    assert np.array_equal(np.load(fresh / "key0.npy"), kept)
    for key in ("key1", "key2"):
        assert np.array_equal(np.load(fresh / f"{key}.npy"), states[key])


def test_a_part_keeps_only_new_states_and_load_brings_back_every_part(tmp_path, monkeypatch):
    monkeypatch.setattr(feature_archive, "ARCHIVE_DIR", tmp_path / "archive")
    monkeypatch.chdir(tmp_path)  # no packed pairs here
    cache = tmp_path / "cache" / "abc123-def456"
    cache.mkdir(parents=True)
    for i in range(2):
        np.save(cache / f"old{i}.npy", np.full(4, i, dtype=np.float32))
    assert feature_archive.save(cache) == 2
    np.save(cache / "new.npy", np.full(4, 9, dtype=np.float32))  # read later: a measurement's own states
    assert feature_archive.save(cache, part="samples") == 1
    with np.load(feature_archive.archive_path(cache, "samples")) as part:
        assert part.files == ["new"]
    fresh = tmp_path / "fresh" / "abc123-def456"
    assert feature_archive.load(fresh) == 3 and np.load(fresh / "new.npy")[0] == 9


def test_a_part_beside_another_reading_keeps_only_the_prompts_that_reading_lacks(tmp_path, monkeypatch):
    """A new reading whose cache began as a copy of another's (load --into): its part holds only the prompts it read
    itself, and loading the other reading's archive into it, then its own part, gives back every state."""
    monkeypatch.setattr(feature_archive, "ARCHIVE_DIR", tmp_path / "archive")
    monkeypatch.chdir(tmp_path)
    old, new = tmp_path / "cache" / "aaa111-def456", tmp_path / "cache" / "bbb222-def456"
    old.mkdir(parents=True)
    np.save(old / "same.npy", np.full(4, 1, dtype=np.float32))
    assert feature_archive.save(old) == 1
    assert feature_archive.load(old, new) == 1  # the prompts both readings show the model alike
    np.save(new / "changed.npy", np.full(4, 2, dtype=np.float32))
    assert feature_archive.save(new, part="own", beside=old) == 1
    with np.load(feature_archive.archive_path(new, "own")) as part:
        assert part.files == ["changed"]
    fresh = tmp_path / "fresh" / "bbb222-def456"
    assert feature_archive.load(old, fresh) + feature_archive.load(new, fresh) == 2
