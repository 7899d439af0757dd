import pytest

from synth.config import load_config
from synth.data.tables import load_catalog
from synth.errors import InputError, SynthError


def write(path, text):
    path.write_text(text)
    return path


def test_demo_data_meets_its_promises(catalog, reviews):
    assert len(catalog) >= 40
    assert all(item.year and item.genres and item.description for item in catalog.values())
    per_user = {}
    for review in reviews:
        per_user.setdefault(review.user, []).append(review)
    assert len(per_user) >= 12 and all(len(rs) >= 5 for rs in per_user.values())
    assert all(1 <= r.rating <= 10 and r.text for r in reviews)


def test_catalog_csv_and_duplicates(tmp_path):
    good = write(tmp_path / "c.csv", "id,title,year,genres,description\na,Heat,1995,Crime|Thriller,cops\n")
    assert load_catalog(good)["a"].genres == ["Crime", "Thriller"]
    dup = write(tmp_path / "d.csv", "id,title\na,Heat\na,Up\n")
    with pytest.raises(InputError, match=r"d.csv, line 3, field 'id': duplicate item id 'a'"):
        load_catalog(dup)


def test_config_yaml_cli_overrides_and_fingerprint(tmp_path):
    path = write(tmp_path / "c.yaml", "n: 10\nseed: 5\nconcurrency: 2\n")
    config = load_config(path, {"seed": 9, "model": None})
    assert (config.n, config.seed, config.concurrency) == (10, 9, 2)
    faster = config.model_copy(update={"concurrency": 8, "progress": False})
    assert faster.fingerprint() == config.fingerprint()
    assert config.model_copy(update={"temperature": 0.5}).fingerprint() != config.fingerprint()
    with pytest.raises(SynthError, match="config field 'backend'"):
        load_config(None, {"backend": "nope"})
    with pytest.raises(SynthError, match="c.yaml: config field 'bogus'"):
        load_config(write(tmp_path / "c.yaml", "bogus: 1\n"), {})
    with pytest.raises(SynthError, match="config field 'k_schedule'"):
        load_config(None, {"k_schedule": []})
